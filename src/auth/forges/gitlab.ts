import type { ProviderConfig } from '../providers-config.js';
import type { ForgeHttp } from './http.js';
import { oauthForge } from './oauth.js';
import { fetchProfile, optionalText, requireId, requireText } from './profile.js';
import type { Forge, ForgeUser } from './types.js';

/** gitlab.com or self-managed; api_url is {url}/api/v4. */
export function gitlabForge(config: ProviderConfig, http: ForgeHttp): Forge {
  return oauthForge(config, http, {
    authorize: `${config.url}/oauth/authorize`,
    token: `${config.url}/oauth/token`,
    clientAuth: 'body',
  }, (token) => fetchUser(http, config.api_url, token));
}

async function fetchUser(http: ForgeHttp, api: string, token: string): Promise<ForgeUser> {
  const user = await fetchProfile(http, `${api}/user`, token);
  return {
    forgeUserId: requireId(http, user.id, 'id'),
    login: requireText(http, user.username, 'username'),
    name: optionalText(user.name),
    // For the token's own user, email is the primary (confirmed) address, not the public one.
    email: optionalText(user.email),
    avatarUrl: optionalText(user.avatar_url),
  };
}
