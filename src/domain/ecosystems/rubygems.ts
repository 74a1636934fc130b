import { eq, gt, valid } from '@renovatebot/ruby-semver';
import type { VersionScheme } from './types.js';

/** Gem::Version: segments split at dots and letter/digit boundaries; a letter segment is a prerelease. */
export const rubygemsScheme: VersionScheme = {
  valid: (version) => valid(version) !== null,
  compare: (a, b) => (eq(a, b) ? 0 : gt(a, b) ? 1 : -1),
};
