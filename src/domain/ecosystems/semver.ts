import semver, { type SemVer } from 'semver';
import type { VersionScheme } from './types.js';

/**
 * Parsed versions, kept for the next comparison: matching an SBOM compares each installed version
 * with every event of its advisories, and semver.compare parses both sides every time (the same
 * "0" and fixed versions over and over). Bounded: cleared when full.
 */
const parsed = new Map<string, SemVer | null>();
const PARSED_MAX = 20_000;

function parse(version: string): SemVer | null {
  let known = parsed.get(version);
  if (known === undefined) {
    if (parsed.size >= PARSED_MAX) parsed.clear();
    known = semver.parse(version);
    parsed.set(version, known);
  }
  return known;
}

/** SemVer 2 (npm, crates.io, Hex, Pub). Strict: "1.2" or "v1.2.3" are not SemVer and stay unchecked. */
export const semverScheme: VersionScheme = {
  valid: (version) => parse(version) !== null,
  compare: (a, b) => parse(a)!.compare(parse(b)!),
};

const bare = (version: string) => (version.startsWith('v') ? version.slice(1) : version);

/**
 * Go modules: SemVer with a leading `v`, which OSV's Go records leave out. Pseudo-versions
 * (v0.0.0-20191109021931-daa7c04131f5) are SemVer prereleases by design, so they order before the
 * release they precede; `+incompatible` is build metadata and ignored.
 */
export const goScheme: VersionScheme = {
  valid: (version) => parse(bare(version)) !== null,
  compare: (a, b) => parse(bare(a))!.compare(parse(bare(b))!),
};
