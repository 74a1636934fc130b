import type { ProviderConfig } from '../../providers-config.js';
import { expectOk, getWithToken, malformed, type ForgeHttp } from './http.js';
import { oauthForge } from './oauth.js';
import { fetchProfile, isRecord, optionalText, primaryVerified, requireId, requireText } from './profile.js';
import type { Forge, ForgeUser } from './types.js';

/** Bitbucket Cloud: url https://bitbucket.org, api_url https://api.bitbucket.org (paths carry /2.0). */
export function bitbucketForge(config: ProviderConfig, http: ForgeHttp): Forge {
  return oauthForge(config, http, {
    authorize: `${config.url}/site/oauth2/authorize`,
    token: `${config.url}/site/oauth2/access_token`,
    clientAuth: 'basic',
  }, (token) => fetchUser(http, `${config.api_url}/2.0`, token));
}

async function fetchUser(http: ForgeHttp, api: string, token: string): Promise<ForgeUser> {
  const user = await fetchProfile(http, `${api}/user`, token);
  const links = isRecord(user.links) ? user.links : {};
  return {
    forgeUserId: requireId(http, user.uuid, 'uuid'),
    // Bitbucket dropped username from most API answers in 2019; nickname is what it shows instead.
    login: requireText(http, optionalText(user.username) ?? user.nickname, 'username or nickname'),
    name: optionalText(user.display_name),
    // The profile never carries an email; it needs the email scope and /user/emails.
    email: await primaryEmail(http, api, token),
    avatarUrl: isRecord(links.avatar) ? optionalText(links.avatar.href) : null,
  };
}

async function primaryEmail(http: ForgeHttp, api: string, token: string): Promise<string | null> {
  const doing = 'fetching the email addresses';
  const answer = await getWithToken(http, `${api}/user/emails?pagelen=100`, token, doing);
  if (answer.status === 403) return null; // token without the email scope
  const page = expectOk(http, answer, doing);
  if (!isRecord(page) || !Array.isArray(page.values)) throw malformed(http, 'an unexpected email list');
  return primaryVerified(page.values, 'is_primary', 'is_confirmed');
}
