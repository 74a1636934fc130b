import type { ProviderConfig } from '../providers-config.js';
import { expectOk, getWithToken, type ForgeHttp } from './http.js';
import { buildAuthorizeUrl, requestAccessToken, type OAuthEndpoints } from './oauth.js';
import { asRecord, optionalText, requireId, requireText } from './profile.js';
import type { Forge, ForgeUser } from './types.js';

/** gitlab.com or self-managed; api_url is {url}/api/v4. */
export function gitlabForge(config: ProviderConfig, http: ForgeHttp): Forge {
  const endpoints: OAuthEndpoints = {
    authorize: `${config.url}/oauth/authorize`,
    token: `${config.url}/oauth/token`,
    clientAuth: 'body',
  };
  return {
    authorizeUrl: (p) => buildAuthorizeUrl(config, endpoints, p),
    exchangeCode: (p) => requestAccessToken(http, config, endpoints, p),
    fetchUser: (token) => fetchUser(http, config.api_url, token),
  };
}

async function fetchUser(http: ForgeHttp, api: string, token: string): Promise<ForgeUser> {
  const doing = 'fetching the user profile';
  const user = asRecord(http, expectOk(http, await getWithToken(http, `${api}/user`, token, doing), doing), 'user profile');
  return {
    forgeUserId: requireId(http, user.id, 'id'),
    login: requireText(http, user.username, 'username'),
    name: optionalText(user.name),
    // For the token's own user, email is the primary (confirmed) address, not the public one.
    email: optionalText(user.email),
    avatarUrl: optionalText(user.avatar_url),
  };
}
