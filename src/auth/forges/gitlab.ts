import type { ProviderConfig } from '../../providers-config.js';
import type { ForgeHttp } from './http.js';
import { oauthForge } from './oauth.js';
import { fetchProfile, profileUser } from './profile.js';
import type { Forge } from './types.js';

/** gitlab.com or self-managed; api_url is {url}/api/v4. */
export function gitlabForge(config: ProviderConfig, http: ForgeHttp): Forge {
  const endpoints = { authorize: `${config.url}/oauth/authorize`, token: `${config.url}/oauth/token`, clientAuth: 'body' } as const;
  // For the token's own user, email is the primary (confirmed) address, not the public one.
  return oauthForge(config, http, endpoints, async (token) =>
    profileUser(http, await fetchProfile(http, `${config.api_url}/user`, token), { login: 'username', name: 'name' }));
}
