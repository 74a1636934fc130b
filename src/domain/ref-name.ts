/**
 * What a scanned ref is, whatever the forge or CI spelled it as. Pure, so every spelling is tested
 * without a database.
 *
 * - `refs/heads/x` and a bare `x` are branch `x`.
 * - `refs/pull/N/merge`, `refs/pull/N/head` (GitHub, Gitea, Forgejo), `refs/merge-requests/N/head`
 *   and `.../merge` (GitLab), and `pr/N` are pull request N, stored as `pr/N`.
 * - `refs/tags/v1` is tag `v1`.
 */
import { badRequest } from '../problem.js';
import { codePoint, displayNameProblem, INVISIBLE } from '../names.js';

export type RefKind = 'branch' | 'pull_request' | 'tag';

export interface RefName {
  kind: RefKind;
  /** Branch and tag names as they are; pull requests as `pr/N`. */
  name: string;
}

export class RefNameError extends Error {}

const PULL = /^refs\/pull\/(\d+)\/(?:merge|head)$/;
const MERGE_REQUEST = /^refs\/merge-requests\/(\d+)\/(?:head|merge)$/;
const SHORT_PULL = /^pr\/(\d+)$/;
/** git check-ref-format's refusals that matter here: control characters, space, ~^:?*[\, "..", "@{", "//". */
// eslint-disable-next-line no-control-regex -- control characters are exactly what git refuses in a ref name
const FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\//;

export function parseRef(raw: string): RefName {
  const pull = PULL.exec(raw) ?? MERGE_REQUEST.exec(raw) ?? SHORT_PULL.exec(raw);
  if (pull) return { kind: 'pull_request', name: `pr/${pullNumber(pull[1]!, raw)}` };
  if (raw.startsWith('refs/heads/')) return { kind: 'branch', name: checkedName(raw.slice('refs/heads/'.length), raw) };
  if (raw.startsWith('refs/tags/')) return { kind: 'tag', name: checkedName(raw.slice('refs/tags/'.length), raw) };
  if (raw.startsWith('refs/')) {
    throw new RefNameError(`"${raw}" is not a branch (refs/heads/…), tag (refs/tags/…) or pull request (refs/pull/N/merge) ref.`);
  }
  return { kind: 'branch', name: checkedName(raw, raw) };
}

/** The string that names this ref in `?ref=` and in responses; parseRef gives the same ref back. */
export function refKey(ref: RefName): string {
  if (ref.kind === 'pull_request') return ref.name;
  if (ref.kind === 'tag') return `refs/tags/${ref.name}`;
  // A branch whose bare name would read as something else is spelled out in full.
  return SHORT_PULL.test(ref.name) || ref.name.startsWith('refs/') ? `refs/heads/${ref.name}` : ref.name;
}

/** The repository's default branch: its `default_branch` (in any spelling of a branch), else `main`. */
export function defaultBranch(configured: string | null): RefName {
  if (configured) {
    try {
      const ref = parseRef(configured);
      if (ref.kind === 'branch') return ref;
    } catch {
      // A default_branch that names no branch falls back, as an unset one does.
    }
  }
  return { kind: 'branch', name: 'main' };
}

export function sameRef(a: { kind: string; name: string }, b: RefName): boolean {
  return a.kind === b.kind && a.name === b.name;
}

function pullNumber(digits: string, raw: string): number {
  const n = Number(digits);
  if (!Number.isSafeInteger(n) || n < 1) throw new RefNameError(`"${raw}" does not name a pull request number.`);
  return n;
}

function checkedName(name: string, raw: string): string {
  if (!name || FORBIDDEN.test(name) || name.startsWith('/') || name.startsWith('-') || name.endsWith('/') || name.endsWith('.') || name === '@'
    || name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) {
    throw new RefNameError(`"${raw}" is not a valid git ref name.`);
  }
  // What a detached checkout reports as its branch (git rev-parse --abbrev-ref HEAD); git refuses it as one.
  if (name === 'HEAD') throw new RefNameError(`"${raw}" names no branch (a detached checkout): send the branch that was built, such as $GITHUB_REF or $CI_COMMIT_REF_NAME.`);
  // Shown on every screen that lists refs: it must not pass for another name (as names of orgs and repos may not).
  // Git takes any of these, but a branch is typed and compared: none is allowed, even in an emoji.
  const invisible = INVISIBLE.exec(name);
  if (invisible) throw new RefNameError(`"${raw}" holds an invisible character (${codePoint(invisible[0])}), so it would pass for another ref.`);
  const problem = displayNameProblem(name);
  if (problem !== null) throw new RefNameError(`"${raw}" ${problem}.`);
  return name;
}

/** A ref a request names (the field it came in, for the error): a malformed one is a 400 naming that field. */
export function requestedRef(raw: string, field: 'ref' | 'base_ref' | 'default_branch' = 'ref'): RefName {
  try {
    return parseRef(raw);
  } catch (error) {
    if (error instanceof RefNameError) throw badRequest(error.message, [{ path: `/${field}`, message: error.message }]);
    throw error;
  }
}
