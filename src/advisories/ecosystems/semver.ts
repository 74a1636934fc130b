import semver from 'semver';
import type { VersionScheme } from './types.js';

/** SemVer 2 (npm, crates.io, Hex, Pub). Strict: "1.2" or "v1.2.3" are not SemVer and stay unchecked. */
export const semverScheme: VersionScheme = {
  valid: (version) => semver.valid(version) !== null,
  compare: (a, b) => semver.compare(a, b),
};

const bare = (version: string) => (version.startsWith('v') ? version.slice(1) : version);

/**
 * Go modules: SemVer with a leading `v`, which OSV's Go records leave out. Pseudo-versions
 * (v0.0.0-20191109021931-daa7c04131f5) are SemVer prereleases by design, so they order before the
 * release they precede; `+incompatible` is build metadata and ignored.
 */
export const goScheme: VersionScheme = {
  valid: (version) => semver.valid(bare(version)) !== null,
  compare: (a, b) => semver.compare(bare(a), bare(b)),
};
