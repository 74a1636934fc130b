import type { ProviderConfig } from '../../providers-config.js';
import { callJson, expectOk, malformed, type ForgeHttp } from './http.js';
import { isRecord } from './profile.js';
import { ForgeError, type Forge, type ForgeUser } from './types.js';

export interface OAuthEndpoints {
  authorize: string;
  token: string;
  /** RFC 6749 2.3.1: credentials in the form body, or as HTTP Basic (Bitbucket documents only that). */
  clientAuth: 'body' | 'basic';
}

const EXCHANGING = 'exchanging the sign-in code';

/** The endpoints GitHub, Gitea and Forgejo share under their web base. */
export const loginOAuthEndpoints = (url: string): OAuthEndpoints =>
  ({ authorize: `${url}/login/oauth/authorize`, token: `${url}/login/oauth/access_token`, clientAuth: 'body' });

/** A forge that speaks OAuth 2.0 at these endpoints and reads its user with `readUser`. */
export function oauthForge(
  config: ProviderConfig,
  http: ForgeHttp,
  endpoints: OAuthEndpoints,
  readUser: (token: string) => Promise<ForgeUser>,
): Forge {
  return {
    authorizeUrl: (p) => buildAuthorizeUrl(config, endpoints, p),
    exchangeCode: (p) => requestAccessToken(http, config, endpoints, p),
    fetchUser: readUser,
  };
}

export function buildAuthorizeUrl(
  config: ProviderConfig,
  endpoints: OAuthEndpoints,
  p: { state: string; codeChallenge: string; redirectUri: string },
): string {
  const url = new URL(endpoints.authorize);
  const q = url.searchParams;
  q.set('client_id', config.client_id);
  q.set('redirect_uri', p.redirectUri);
  q.set('response_type', 'code');
  if (config.scopes.length > 0) q.set('scope', config.scopes.join(' '));
  q.set('state', p.state);
  q.set('code_challenge', p.codeChallenge);
  q.set('code_challenge_method', 'S256');
  return url.toString();
}

export async function requestAccessToken(
  http: ForgeHttp,
  config: ProviderConfig,
  endpoints: OAuthEndpoints,
  p: { code: string; codeVerifier: string; redirectUri: string },
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: p.code,
    redirect_uri: p.redirectUri,
    code_verifier: p.codeVerifier,
  });
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (endpoints.clientAuth === 'basic') {
    headers.Authorization = `Basic ${Buffer.from(`${config.client_id}:${config.client_secret}`).toString('base64')}`;
  } else {
    form.set('client_id', config.client_id);
    form.set('client_secret', config.client_secret);
  }
  const answer = await callJson(http, endpoints.token, { method: 'POST', headers, body: form }, EXCHANGING);
  // GitHub reports errors as 200 + {error}; the others as 400/401 + {error}: one check covers both.
  const error = oauthErrorCode(answer.body, [config.client_secret, p.code, p.codeVerifier]);
  if (error !== null) throw new ForgeError(`${http.name} did not accept the sign-in: ${error}`, 'rejected');
  const body = expectOk(http, answer, EXCHANGING);
  const token = isRecord(body) ? body.access_token : undefined;
  if (typeof token !== 'string' || token === '') throw malformed(http, 'a token answer without an access token');
  return token;
}

/** The RFC 6749 error code, only if it looks like one and echoes nothing we sent. */
function oauthErrorCode(body: unknown, sensitive: string[]): string | null {
  if (!isRecord(body) || typeof body.error !== 'string') return null;
  const code = body.error;
  const plain = /^[A-Za-z0-9_.-]{1,64}$/.test(code) && !sensitive.some((s) => s !== '' && code.includes(s));
  return plain ? code : 'unrecognised_error';
}
