import type { ForgeType, ProviderConfig } from '../providers-config.js';
import { installationTokens } from '../github-app/installation-tokens.js';
import { forgeRequest } from './http.js';

/** What posting to one forge needs: which kind it is, where its API is, and a token for a repository (owner/name). */
export interface ForgeAccess {
  type: ForgeType;
  apiUrl: string;
  /** SERVICE_FORGE_ALLOW_PRIVATE: whether the API may be on a loopback or private address. */
  allowPrivate: boolean;
  token(fullName: string): Promise<string>;
}

/**
 * The forge of a repository: the provider its organisation is linked to (forge/, `forge_links`), or,
 * for an organisation not linked, the one configured provider that carries credentials to act with (a
 * GitHub App, or a token); null when there is none or several to choose from.
 */
export function forgeAccessResolver(
  providers: readonly ProviderConfig[], linkedProviderOf: (repositoryId: string) => Promise<string | null>, allowPrivate: boolean, clock: () => number = Date.now,
): (repositoryId: string) => Promise<ForgeAccess | null> {
  const usable = providers.filter((p) => p.sync !== null);
  const byId = new Map(usable.map((p) => [p.id, accessFor(p, allowPrivate, clock)]));
  const only = usable.length === 1 ? byId.get(usable[0]!.id)! : null;
  return async (repositoryId) => {
    const linked = await linkedProviderOf(repositoryId);
    return linked === null ? only : byId.get(linked) ?? null;
  };
}

function accessFor(provider: ProviderConfig, allowPrivate: boolean, clock: () => number): ForgeAccess {
  const sync = provider.sync!;
  if (sync.kind === 'github_app') {
    // The forge's refusal (a ForgeRefused from forgeRequest) reaches the delivery log as any other.
    const tokens = installationTokens({ name: provider.name, apiUrl: provider.api_url, appId: sync.appId, privateKey: sync.privateKey },
      async (r) => (await forgeRequest({ method: r.method, url: r.url, token: r.jwt, doing: r.doing, headers: r.headers, allowPrivate })).json, clock);
    return { type: 'github', apiUrl: provider.api_url, allowPrivate, token: (fullName) => tokens.forRepository(fullName) };
  }
  const { token } = sync;
  return { type: provider.type, apiUrl: provider.api_url, allowPrivate, token: async () => token };
}
