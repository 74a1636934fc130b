import type { VersionScheme } from './types.js';

/**
 * NuGet versions: SemVer 2 with an optional fourth (revision) number, missing numbers counting as
 * zero ("1.0" = "1.0.0.0"), and prerelease labels compared case-insensitively.
 */
const PATTERN = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

function parse(version: string): { numbers: bigint[]; labels: string[] } | null {
  const match = PATTERN.exec(version);
  if (!match) return null;
  return {
    numbers: [1, 2, 3, 4].map((i) => BigInt(match[i] ?? '0')),
    labels: match[5] ? match[5].toLowerCase().split('.') : [],
  };
}

function compareLabel(a: string, b: string): number {
  const aNumeric = /^\d+$/.test(a);
  const bNumeric = /^\d+$/.test(b);
  if (aNumeric && bNumeric) return Number(BigInt(a) - BigInt(b) > 0n) - Number(BigInt(a) - BigInt(b) < 0n);
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export const nugetScheme: VersionScheme = {
  valid: (version) => parse(version) !== null,
  compare: (a, b) => {
    const left = parse(a)!;
    const right = parse(b)!;
    for (let i = 0; i < 4; i++) {
      if (left.numbers[i] !== right.numbers[i]) return left.numbers[i]! < right.numbers[i]! ? -1 : 1;
    }
    if (left.labels.length === 0 || right.labels.length === 0) return right.labels.length - left.labels.length;
    for (let i = 0; i < Math.max(left.labels.length, right.labels.length); i++) {
      const l = left.labels[i];
      const r = right.labels[i];
      if (l === undefined || r === undefined) return l === undefined ? -1 : 1;
      const result = compareLabel(l, r);
      if (result !== 0) return result;
    }
    return 0;
  },
};
