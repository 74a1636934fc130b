/**
 * Globs of trust rules over repository names (`acme/*`) and refs (`refs/tags/v*`): `*` is any text
 * within one `/`-separated segment, a final `**` segment any number of further segments, the rest
 * literal (so Bitbucket's braced `{repositoryUuid}` is itself). Matched without regular expressions,
 * at most pattern length times text length per segment.
 */
export const MAX_GLOB_LENGTH = 256;

export function ciGlobProblem(pattern: string): string | null {
  if (pattern === '') return 'is empty';
  if (pattern.length > MAX_GLOB_LENGTH) return `is longer than ${MAX_GLOB_LENGTH} characters`;
  const segments = pattern.split('/');
  const inner = segments.findIndex((s, i) => s.includes('**') && (s !== '**' || i !== segments.length - 1));
  if (inner !== -1) return '"**" may only be the last segment, on its own';
  return null;
}

export function ciGlobMatches(pattern: string, text: string): boolean {
  if (text.length > 4096) return false;
  const p = pattern.split('/');
  const t = text.split('/');
  const rest = p.at(-1) === '**';
  const fixed = rest ? p.slice(0, -1) : p;
  if (rest ? t.length <= fixed.length : t.length !== fixed.length) return false;
  return fixed.every((segment, i) => segmentMatches(segment, t[i]!));
}

/** Wildcard match of one segment (only `*`): the classic two-pointer walk, retrying from the last star. */
function segmentMatches(pattern: string, text: string): boolean {
  let pi = 0;
  let ti = 0;
  let star = -1;
  let mark = 0;
  while (ti < text.length) {
    if (pi < pattern.length && pattern[pi] !== '*' && pattern[pi] === text[ti]) {
      pi++;
      ti++;
    } else if (pi < pattern.length && pattern[pi] === '*') {
      star = pi++;
      mark = ti;
    } else if (star !== -1) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pattern.length && pattern[pi] === '*') pi++;
  // A segment of stars alone never matches an empty segment.
  return pi === pattern.length && (text !== '' || pattern === '');
}
