import type { ProviderConfig } from '../../providers-config.js';
import type { ForgeHttp } from './http.js';
import { loginOAuthEndpoints, oauthForge } from './oauth.js';
import { fetchProfile, profileUser } from './profile.js';
import type { Forge } from './types.js';

/** Gitea and Forgejo (a Gitea fork) share the OAuth provider and the /api/v1 user API. */
export function giteaForge(config: ProviderConfig, http: ForgeHttp): Forge {
  return oauthForge(config, http, loginOAuthEndpoints(config.url), async (token) =>
    profileUser(http, await fetchProfile(http, `${config.api_url}/user`, token), { login: 'login', name: 'full_name' }));
}
