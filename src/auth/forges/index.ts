import type { ProviderConfig } from '../../providers-config.js';
import { bitbucketForge } from './bitbucket.js';
import { giteaForge } from './gitea.js';
import { githubForge } from './github.js';
import { gitlabForge } from './gitlab.js';
import type { ForgeHttp } from './http.js';
import type { Forge, ForgeOptions } from './types.js';

export { ForgeError } from './types.js';
export type { Forge, ForgeErrorKind, ForgeOptions, ForgeUser } from './types.js';
export { pkcePair, randomState } from './pkce.js';

const DEFAULT_TIMEOUT_MS = 10_000;

export function createForge(config: ProviderConfig, opts: ForgeOptions = {}): Forge {
  const http: ForgeHttp = {
    name: config.name,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    // Looked up per call so a test can swap the global fetch after createForge.
    fetch: opts.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  };
  switch (config.type) {
    case 'github':
      return githubForge(config, http);
    case 'gitlab':
      return gitlabForge(config, http);
    case 'gitea':
    case 'forgejo':
      return giteaForge(config, http);
    case 'bitbucket':
      return bitbucketForge(config, http);
    default:
      throw new Error(`unknown forge type ${JSON.stringify((config as { type: unknown }).type)}`);
  }
}
