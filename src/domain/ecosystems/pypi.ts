import * as pep440 from '@renovatebot/pep440';
import type { VersionScheme } from './types.js';

/** PEP 440: epochs, pre-, post- and dev-releases, local versions. */
export const pypiScheme: VersionScheme = {
  valid: (version) => pep440.valid(version) !== null,
  compare: (a, b) => pep440.compare(a, b),
};
