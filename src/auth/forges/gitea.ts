import type { ProviderConfig } from '../providers-config.js';
import type { ForgeHttp } from './http.js';
import { oauthForge } from './oauth.js';
import { fetchProfile, optionalText, requireId, requireText } from './profile.js';
import type { Forge, ForgeUser } from './types.js';

/** Gitea and Forgejo (a Gitea fork) share the OAuth provider and the /api/v1 user API. */
export function giteaForge(config: ProviderConfig, http: ForgeHttp): Forge {
  return oauthForge(config, http, {
    authorize: `${config.url}/login/oauth/authorize`,
    token: `${config.url}/login/oauth/access_token`,
    clientAuth: 'body',
  }, (token) => fetchUser(http, config.api_url, token));
}

async function fetchUser(http: ForgeHttp, api: string, token: string): Promise<ForgeUser> {
  const user = await fetchProfile(http, `${api}/user`, token);
  return {
    forgeUserId: requireId(http, user.id, 'id'),
    login: requireText(http, user.login, 'login'),
    name: optionalText(user.full_name),
    email: optionalText(user.email),
    avatarUrl: optionalText(user.avatar_url),
  };
}
