import type { ProviderConfig } from '../../providers-config.js';
import { expectOk, getWithToken, malformed, type ForgeHttp } from './http.js';
import { loginOAuthEndpoints, oauthForge } from './oauth.js';
import { fetchProfile, primaryVerified, profileUser } from './profile.js';
import type { Forge, ForgeUser } from './types.js';

/** github.com, or GitHub Enterprise Server (api_url {url}/api/v3). */
export function githubForge(config: ProviderConfig, http: ForgeHttp): Forge {
  return oauthForge(config, http, loginOAuthEndpoints(config.url), (token) => fetchUser(http, config.api_url, token));
}

async function fetchUser(http: ForgeHttp, api: string, token: string): Promise<ForgeUser> {
  const user = await fetchProfile(http, `${api}/user`, token);
  const found = profileUser(http, user, { login: 'login', name: 'name' });
  // /user shows only the public email; a private one needs the user:email scope and /user/emails.
  return { ...found, email: found.email ?? (await primaryEmail(http, api, token)) };
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
