import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ForgeType, ProviderConfig } from '../providers-config.js';
import { forgeRequest } from './http.js';

/** What posting to one forge needs: which kind it is, where its API is, and a token for a repository (owner/name). */
export interface ForgeAccess {
  type: ForgeType;
  apiUrl: string;
  token(fullName: string): Promise<string>;
}

/** Installation tokens live an hour; a new one is minted this long before. */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * The forge of a repository: the provider its organisation is linked to (forge/, `forge_links`), or,
 * for an organisation not linked, the one configured provider that carries credentials to act with (a
 * GitHub App, or a token); null when there is none or several to choose from.
 */
export function forgeAccessResolver(
  providers: readonly ProviderConfig[], linkedProviderOf: (repositoryId: string) => Promise<string | null>, clock: () => number = Date.now,
): (repositoryId: string) => Promise<ForgeAccess | null> {
  const usable = providers.filter((p) => p.sync !== null);
  const byId = new Map(usable.map((p) => [p.id, accessFor(p, clock)]));
  const only = usable.length === 1 ? byId.get(usable[0]!.id)! : null;
  return async (repositoryId) => {
    const linked = await linkedProviderOf(repositoryId);
    return linked === null ? only : byId.get(linked) ?? null;
  };
}

function accessFor(provider: ProviderConfig, clock: () => number): ForgeAccess {
  const sync = provider.sync!;
  if (sync.kind === 'github_app') {
    return { type: 'github', apiUrl: provider.api_url, token: githubAppTokens(provider.api_url, sync.appId, sync.privateKey, clock) };
  }
  const { token } = sync;
  return { type: provider.type, apiUrl: provider.api_url, token: async () => token };
}

/**
 * GitHub App installation tokens, as GitHub documents it: a JWT signed RS256 with the app's private
 * key (iss: the app id, iat a minute back for clock drift, exp at most 10 minutes on), then the
 * repository's installation, then a token for it, kept per owner until shortly before it expires.
 */
function githubAppTokens(apiUrl: string, appId: string, pem: string, clock: () => number): (fullName: string) => Promise<string> {
  const key = createPrivateKey(pem);
  const cache = new Map<string, { token: string; expiresAt: number }>();
  return async (fullName) => {
    const owner = fullName.split('/')[0]!;
    const cached = cache.get(owner);
    if (cached && cached.expiresAt - RENEW_BEFORE_MS > clock()) return cached.token;
    const seconds = Math.floor(clock() / 1000);
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setIssuer(appId)
      .setIssuedAt(seconds - 60).setExpirationTime(seconds + 9 * 60).sign(key);
    const accept = 'application/vnd.github+json';
    const installation = await forgeRequest('GET', `${apiUrl}/repos/${fullName.split('/').map(encodeURIComponent).join('/')}/installation`, jwt, undefined, `finding the GitHub App's installation on ${owner}`, accept);
    const id = (installation.json as { id?: number } | null)?.id;
    if (typeof id !== 'number') throw new Error(`GitHub named no installation of the app on ${owner}`);
    const minted = await forgeRequest('POST', `${apiUrl}/app/installations/${id}/access_tokens`, jwt, undefined, `minting an installation token for ${owner}`, accept);
    const body = minted.json as { token?: string; expires_at?: string } | null;
    if (!body?.token) throw new Error('GitHub answered no installation token');
    cache.set(owner, { token: body.token, expiresAt: Date.parse(body.expires_at ?? '') || clock() + 3_600_000 });
    return body.token;
  };
}
