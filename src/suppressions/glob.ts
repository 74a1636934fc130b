/**
 * Path globs of suppression rules, matched without regular expressions: picomatch compiled `*` to a
 * backtracking expression, so `*a*a*a*a*a*b` against a path of 100 'a's took seconds. Here a pattern
 * is split into segments, each matched by placing its `*`-separated pieces leftmost (which is exact
 * for `*` and `?`), and `**` segments are followed as a set of positions, so a match costs at most
 * the pattern's length times the path's, both bounded: a pattern of 256 characters, a path of
 * 4,096 (PATH_MAX; a longer one is matched by no glob, so it stays open rather than cost more).
 *
 * The syntax is the one documented, with picomatch's answers (`dot: true`): `*` any text within a
 * segment (dotfiles too), `?` one character, `**` as a whole segment any number of segments, the
 * rest literal. `*` and `**` never match a `.` or `..` segment, and a segment of stars alone never
 * matches an empty one.
 */

const MAX_PATTERN_LENGTH = 256;
const MAX_PATH_LENGTH = 4_096;
const UNSUPPORTED = /[[\]{}()|\\"]/;

/** Why a pattern cannot be a rule's path glob, or null when it can. */
export function globProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  if (pattern.startsWith('!')) return 'negation (a leading "!") is not supported; a rule matches what it names';
  const found = UNSUPPORTED.exec(pattern);
  if (found) return `${JSON.stringify(found[0])} is not supported: use *, ** and ? (braces, classes, groups, quotes and escapes are not)`;
  return null;
}

const GLOBSTAR = Symbol('**');

interface Segment {
  /** The text between stars (an empty piece where a star starts or ends the segment). */
  pieces: Piece[];
  startsWithStar: boolean;
}

/** Text between stars, as its literal runs (between `?`s), compared natively rather than a character at a time. */
interface Piece {
  length: number;
  runs: { at: number; text: string }[];
}

function piece(text: string): Piece {
  const runs: Piece['runs'] = [];
  const literal = /[^?]+/g;
  for (let found = literal.exec(text); found; found = literal.exec(text)) runs.push({ at: found.index, text: found[0] });
  return { length: text.length, runs };
}

/** A predicate over paths; a pattern globProblem refuses (stored before it was refused) matches nothing. */
export function compileGlob(pattern: string): (path: string) => boolean {
  if (globProblem(pattern) !== null) return () => false;
  const segments = pattern.replace(/^\.\//, '').split('/').map((text): Segment | typeof GLOBSTAR =>
    (text === '**' ? GLOBSTAR : { pieces: text.split(/\*+/).map(piece), startsWithStar: text.startsWith('*') }));
  const last = segments.length;

  /** Positions reached, with those a `**` may skip past without consuming a segment. */
  const close = (reached: boolean[]): boolean[] => {
    for (let i = 0; i < last; i += 1) if (reached[i] && segments[i] === GLOBSTAR) reached[i + 1] = true;
    return reached;
  };

  return (path) => {
    if (path === '' || path.length > MAX_PATH_LENGTH) return false;
    let reached = close(Array.from({ length: last + 1 }, (_, i) => i === 0));
    for (const text of path.split('/')) {
      const next = new Array<boolean>(last + 1).fill(false);
      let any = false;
      for (let i = 0; i < last; i += 1) {
        if (!reached[i]) continue;
        const segment = segments[i]!;
        if (segment === GLOBSTAR) {
          if (text !== '.' && text !== '..') next[i] = any = true;
        } else if (segmentMatches(segment, text)) {
          next[i + 1] = any = true;
        }
      }
      if (!any) return false;
      reached = close(next);
    }
    return reached[last]!;
  };
}

function segmentMatches({ pieces, startsWithStar }: Segment, text: string): boolean {
  if (pieces.length === 1) return text.length === pieces[0]!.length && pieceAt(pieces[0]!, text, 0);
  if (startsWithStar && (text === '.' || text === '..')) return false;
  const first = pieces[0]!;
  const final = pieces[pieces.length - 1]!;
  if (text === '' && first.length === 0 && final.length === 0) return false;
  const end = text.length - final.length;
  if (end < first.length || !pieceAt(first, text, 0) || !pieceAt(final, text, end)) return false;
  let at = first.length;
  for (let p = 1; p < pieces.length - 1; p += 1) {
    const found = find(pieces[p]!, text, at, end);
    if (found < 0) return false;
    at = found + pieces[p]!.length;
  }
  return true;
}

/** Where the piece first fits in text[from, end), or -1. */
function find(piece: Piece, text: string, from: number, end: number): number {
  if (piece.runs.length === 1 && piece.runs[0]!.text.length === piece.length) {
    const found = text.indexOf(piece.runs[0]!.text, from);
    return found >= 0 && found + piece.length <= end ? found : -1;
  }
  for (let at = from; at + piece.length <= end; at += 1) if (pieceAt(piece, text, at)) return at;
  return -1;
}

function pieceAt(piece: Piece, text: string, at: number): boolean {
  return piece.runs.every((run) => text.startsWith(run.text, at + run.at));
}
