import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/** What GitHub's REST API answers JSON with (docs.github.com, "Getting started with the REST API"). */
export const GITHUB_JSON = 'application/vnd.github+json';
export const GITHUB_API_VERSION = '2022-11-28';

/** Installation tokens live an hour; a new one is minted this long before it ends. */
const RENEW_BEFORE_MS = 5 * 60_000;

/** A GitHub App as a provider configures it. */
export interface GithubApp {
  /** The provider's display name, for messages. */
  name: string;
  apiUrl: string;
  appId: string;
  /** The App's PEM private key. */
  privateKey: string;
}

/**
 * One request made with the App's JWT. It goes through the caller's own HTTP client, whose rules
 * differ (forge sync guards addresses and waits out rate limits; a verdict records the forge's
 * refusal in its delivery log), so the caller sends it: `Authorization: Bearer <jwt>`, `headers` as given.
 */
export interface AppRequest {
  method: 'GET' | 'POST';
  url: string;
  jwt: string;
  headers: Record<string, string>;
  /** Finding the installation, or minting its token; and on whose account. */
  step: 'installation' | 'token';
  owner: string;
  /** What is being done, in words, for the caller's messages. */
  doing: string;
}

/** Sends an AppRequest: the parsed JSON of a 2xx answer, or a throw in the caller's own terms. */
export type AppTransport = (request: AppRequest) => Promise<unknown>;

/** GitHub answered 2xx with something that is not what its documentation says. */
export class GithubAppAnswerError extends Error {
  override readonly name = 'GithubAppAnswerError';
}

export interface InstallationTokens {
  /** A token of the App's installation on an organisation (GET /orgs/{org}/installation). */
  forOrg(org: string): Promise<string>;
  /** A token of the installation that holds a repository, `owner/name`, whether an organisation's or a user's (GET /repos/{owner}/{repo}/installation). */
  forRepository(fullName: string): Promise<string>;
}

/**
 * Installation tokens as GitHub documents them ("Authenticating as a GitHub App installation"): a JWT
 * signed RS256 with the App's private key (iss: the App id; iat a minute back for clock drift; exp 9
 * minutes on, under GitHub's 10), the account's installation, then POST
 * /app/installations/{id}/access_tokens. An installation is per account, so its token is kept per
 * owner (in any case) until shortly before its `expires_at`, and concurrent asks share one minting.
 */
export function installationTokens(app: GithubApp, send: AppTransport, clock: () => number = Date.now): InstallationTokens {
  let key: KeyObject | null = null;
  const cache = new Map<string, { token: string; until: number }>();
  const minting = new Map<string, Promise<string>>();

  async function appJwt(): Promise<string> {
    key ??= createPrivateKey(app.privateKey);
    const seconds = Math.floor(clock() / 1000);
    return new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setIssuer(app.appId).setIssuedAt(seconds - 60).setExpirationTime(seconds + 540).sign(key);
  }

  async function mint(owner: string, installationPath: string): Promise<string> {
    const jwt = await appJwt();
    const headers = { accept: GITHUB_JSON, 'x-github-api-version': GITHUB_API_VERSION };
    const installation = await send({
      method: 'GET', url: `${app.apiUrl}${installationPath}`, jwt, headers, step: 'installation', owner, doing: `finding the GitHub App's installation on ${owner}`,
    });
    const id = (installation as { id?: unknown } | null)?.id;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new GithubAppAnswerError(`${app.name} named no installation of the GitHub App on ${owner}`);
    const minted = await send({
      method: 'POST', url: `${app.apiUrl}/app/installations/${id}/access_tokens`, jwt, headers, step: 'token', owner, doing: `minting an installation token for ${owner}`,
    }) as { token?: unknown; expires_at?: unknown } | null;
    if (typeof minted?.token !== 'string' || minted.token === '') throw new GithubAppAnswerError(`${app.name} answered no installation token for ${owner}`);
    const expires = typeof minted.expires_at === 'string' ? Date.parse(minted.expires_at) : NaN;
    cache.set(owner.toLowerCase(), { token: minted.token, until: (Number.isNaN(expires) ? clock() + 3_600_000 : expires) - RENEW_BEFORE_MS });
    return minted.token;
  }

  function tokenOf(owner: string, installationPath: string): Promise<string> {
    const key = owner.toLowerCase();
    const cached = cache.get(key);
    if (cached && cached.until > clock()) return Promise.resolve(cached.token);
    let pending = minting.get(key);
    if (!pending) {
      pending = mint(owner, installationPath).finally(() => minting.delete(key));
      minting.set(key, pending);
    }
    return pending;
  }

  return {
    forOrg: (org) => tokenOf(org, `/orgs/${encodeURIComponent(org)}/installation`),
    forRepository(fullName) {
      const [owner = '', name = ''] = fullName.split('/');
      return tokenOf(owner, `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/installation`);
    },
  };
}
