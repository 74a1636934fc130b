import type { ProviderConfig } from '../../providers-config.js';
import { githubSync } from './github.js';
import { gitlabSync } from './gitlab.js';
import { giteaSync } from './gitea.js';
import { bitbucketSync } from './bitbucket.js';
import type { ForgeCallOptions } from './http.js';
import type { ForgeSyncClient } from './types.js';

export { ForgeSyncError } from './http.js';
export type { ForgeCallOptions } from './http.js';
export * from './types.js';

/**
 * The sync client of a provider with sync credentials, by forge type (the same types as the sign-in
 * forges of auth/forges/); null when it has none.
 */
export function createSyncClient(config: ProviderConfig, call: ForgeCallOptions): ForgeSyncClient | null {
  if (config.sync === null) return null;
  switch (config.type) {
    case 'github':
      return githubSync(config, call);
    case 'gitlab':
      return gitlabSync(config, call);
    case 'gitea':
    case 'forgejo':
      return giteaSync(config, call);
    case 'bitbucket':
      return bitbucketSync(config, call);
  }
}
