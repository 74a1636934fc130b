import type { ProviderConfig } from '../providers-config.js';
import { expectOk, getWithToken, malformed, type ForgeHttp } from './http.js';
import { oauthForge } from './oauth.js';
import { fetchProfile, optionalText, primaryVerified, requireId, requireText } from './profile.js';
import type { Forge, ForgeUser } from './types.js';

/** github.com, or GitHub Enterprise Server (api_url {url}/api/v3). */
export function githubForge(config: ProviderConfig, http: ForgeHttp): Forge {
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
    name: optionalText(user.name),
    // /user shows only the public email; a private one needs the user:email scope and /user/emails.
    email: optionalText(user.email) ?? (await primaryEmail(http, api, token)),
    avatarUrl: optionalText(user.avatar_url),
  };
}

async function primaryEmail(http: ForgeHttp, api: string, token: string): Promise<string | null> {
  const doing = 'fetching the email addresses';
  const answer = await getWithToken(http, `${api}/user/emails?per_page=100`, token, doing);
  // Without the user:email scope GitHub answers 404 (403 for some app tokens): no email, not a failure.
  if (answer.status === 403 || answer.status === 404) return null;
  const list = expectOk(http, answer, doing);
  if (!Array.isArray(list)) throw malformed(http, 'an unexpected email list');
  return primaryVerified(list, 'primary', 'verified');
}
