import type { VersionScheme } from './types.js';

/**
 * Packagist (Composer) versions: Composer normalises the numeric part to four numbers ("1.2" is
 * 1.2.0.0) and orders the rest as PHP's version_compare does: dev < alpha = a < beta = b < RC = rc <
 * a number < patch = pl = p.
 */
const PATTERN = /^v?(\d+(?:\.\d+){0,3})(?:[._-]?((?:dev|alpha|a|beta|b|rc|RC|patch|pl|p)(?:[._-]?\d+)*))?$/i;
const SPECIAL: Record<string, number> = { dev: 0, alpha: 1, a: 1, beta: 2, b: 2, rc: 3, '#': 4, patch: 5, pl: 5, p: 5 };

function parts(version: string): (bigint | string)[] | null {
  const match = PATTERN.exec(version);
  if (!match) return null;
  const numbers = match[1]!.split('.').map(BigInt);
  while (numbers.length < 4) numbers.push(0n);
  const rest = (match[2] ?? '').toLowerCase().replace(/[._-]/g, '.').replace(/(\d)(?=[a-z])|([a-z])(?=\d)/g, '$1$2.');
  return [...numbers, ...rest.split('.').filter((p) => p !== '').map((p) => (/^\d+$/.test(p) ? BigInt(p) : p))];
}

function rank(part: bigint | string | undefined): number {
  if (part === undefined || typeof part === 'bigint') return SPECIAL['#']!;
  return SPECIAL[part]!;
}

export const composerScheme: VersionScheme = {
  valid: (version) => parts(version) !== null,
  compare: (a, b) => {
    const left = parts(a)!;
    const right = parts(b)!;
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const l = left[i];
      const r = right[i];
      if (typeof l === 'bigint' && typeof r === 'bigint') {
        if (l !== r) return l < r ? -1 : 1;
        continue;
      }
      // A version that goes on past the other is newer when it goes on with a number or a patch.
      if (l === undefined && typeof r === 'bigint') return -1;
      if (r === undefined && typeof l === 'bigint') return 1;
      const difference = rank(l) - rank(r);
      if (difference !== 0) return difference;
    }
    return 0;
  },
};
