import type { VersionScheme } from './types.js';

/**
 * Alpine's apk versions, as apk-tools defines them: `digits{.digits}[letter]{_suffix[number]}[-rN]`.
 * Suffixes before the release (_alpha < _beta < _pre < _rc) sort below the bare version, those
 * after it (_cvs < _svn < _git < _hg < _p) above it.
 */
const SUFFIXES = ['alpha', 'beta', 'pre', 'rc', '', 'cvs', 'svn', 'git', 'hg', 'p'];
const RELEASE = SUFFIXES.indexOf('');
const PATTERN = /^(\d+(?:\.\d+)*)([a-z])?((?:_(?:alpha|beta|pre|rc|cvs|svn|git|hg|p)\d*)*)(?:-r(\d+))?$/;

interface ApkVersion {
  numbers: bigint[];
  letter: string;
  suffixes: { rank: number; number: bigint }[];
  release: bigint;
}

function parse(version: string): ApkVersion | null {
  const match = PATTERN.exec(version);
  if (!match) return null;
  const suffixes = (match[3] ?? '').split('_').slice(1).map((part) => {
    const [, name = '', number = ''] = /^([a-z]+)(\d*)$/.exec(part)!;
    return { rank: SUFFIXES.indexOf(name), number: BigInt(number || '0') };
  });
  return { numbers: match[1]!.split('.').map(BigInt), letter: match[2] ?? '', suffixes, release: BigInt(match[4] ?? '0') };
}

const sign = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

export const apkScheme: VersionScheme = {
  valid: (version) => parse(version) !== null,
  compare: (a, b) => {
    const left = parse(a)!;
    const right = parse(b)!;
    for (let i = 0; i < Math.max(left.numbers.length, right.numbers.length); i++) {
      const l = left.numbers[i];
      const r = right.numbers[i];
      if (l === undefined || r === undefined) return l === undefined ? -1 : 1;
      if (l !== r) return sign(l, r);
    }
    if (left.letter !== right.letter) return left.letter < right.letter ? -1 : 1;
    for (let i = 0; i < Math.max(left.suffixes.length, right.suffixes.length); i++) {
      const l = left.suffixes[i] ?? { rank: RELEASE, number: 0n };
      const r = right.suffixes[i] ?? { rank: RELEASE, number: 0n };
      if (l.rank !== r.rank) return l.rank - r.rank;
      if (l.number !== r.number) return sign(l.number, r.number);
    }
    return sign(left.release, right.release);
  },
};
