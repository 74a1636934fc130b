import type { ProviderConfig } from '../../providers-config.js';
import { forgeCall, ForgeSyncError, idOf, isRecord, sameOrigin, textOf, type ForgeAnswer, type ForgeCallOptions } from './http.js';
import { hmacHex, headerOf, safeEqual } from './signatures.js';
import type { ForgeMember, ForgeRepo, ForgeSyncClient, HookRoute, Snapshot } from './types.js';

/** The largest page Bitbucket Cloud serves for these lists (REST API 2.0, "Pagination"). */
const PAGELEN = 100;

/**
 * Bitbucket Cloud (REST API 2.0) with a workspace access token sent as a Bearer token. Lists are
 * pages whose body names the next one (`next`, absent on the last). A workspace has repositories
 * and members with a permission (owner, collaborator, member); its groups live only in the
 * deprecated 1.0 API, so no teams are synced. Repository and user ids are UUIDs in braces, kept as
 * Bitbucket spells them (the same string its OIDC tokens and sign-in carry).
 */
export function bitbucketSync(config: ProviderConfig, call: ForgeCallOptions): ForgeSyncClient {
  const sync = config.sync;
  if (sync?.kind !== 'token') throw new Error(`provider ${config.id} has no sync token configured`);
  const { token: botToken, webhookSecret } = sync;
  const api = `${config.api_url}/2.0`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  function ok(answer: ForgeAnswer, doing: string): unknown {
    if (answer.status < 200 || answer.status >= 300) {
      const error = isRecord(answer.body) && isRecord(answer.body.error) ? textOf(answer.body.error.message) : null;
      throw new ForgeSyncError(`${config.name} answered HTTP ${answer.status} while ${doing}${error ? `: ${error.slice(0, 200)}` : ''}`, answer.status);
    }
    return answer.body;
  }

  async function list(path: string, doing: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let url: string | null = `${api}${path}${path.includes('?') ? '&' : '?'}pagelen=${PAGELEN}`;
    while (url !== null) {
      const page = ok(await forgeCall(call, url, { headers: bearer(botToken) }, doing), doing);
      if (!isRecord(page) || !Array.isArray(page.values)) throw new ForgeSyncError(`${config.name} sent something other than a page of values while ${doing}`);
      items.push(...page.values.filter(isRecord));
      const next = textOf(page.next);
      url = next !== null && sameOrigin(next, api) && page.values.length > 0 ? next : null;
    }
    return items;
  }

  const repoOf = (r: Record<string, unknown>): ForgeRepo => {
    const links = isRecord(r.links) && isRecord(r.links.html) ? textOf(r.links.html.href) : null;
    return {
      forgeId: idOf(r.uuid, 'a repository', config.name),
      name: textOf(r.slug) ?? textOf(r.name) ?? '',
      fullName: textOf(r.full_name) ?? '',
      defaultBranch: isRecord(r.mainbranch) ? textOf(r.mainbranch.name) : null,
      visibility: r.is_private === true ? 'private' : 'public',
      // Bitbucket Cloud has no archived repositories.
      archived: false,
      url: links,
    };
  };
  const workspacePath = (owner: string) => encodeURIComponent(owner.toLowerCase());

  return {
    async readSnapshot(owner, parts) {
      const snapshot: Snapshot = {};
      if (parts.includes('repos')) snapshot.repos = (await list(`/repositories/${workspacePath(owner)}`, `listing the repositories of ${owner}`)).map(repoOf);
      if (parts.includes('members')) {
        snapshot.members = (await list(`/workspaces/${workspacePath(owner)}/permissions`, `listing the members of ${owner}`)).flatMap((m): ForgeMember[] => {
          if (!isRecord(m.user)) return [];
          const user = m.user;
          return [{
            forgeUserId: idOf(user.uuid, 'a member', config.name),
            login: textOf(user.nickname) ?? textOf(user.display_name) ?? '',
            role: m.permission === 'owner' ? 'owner' : 'member',
          }];
        });
      }
      return snapshot;
    },

    async isAdmin(owner, userToken, forgeUserId) {
      // The caller's own memberships, narrowed to this workspace: "owner" is a workspace administrator.
      const q = encodeURIComponent(`workspace.slug="${owner.toLowerCase()}"`);
      const answer = await forgeCall(call, `${api}/user/permissions/workspaces?q=${q}`, { headers: bearer(userToken) }, `checking your role in ${owner}`);
      if (answer.status === 401 || answer.status === 403 || answer.status === 404) return false;
      const body = ok(answer, `checking your role in ${owner}`);
      if (!isRecord(body) || !Array.isArray(body.values)) return false;
      return body.values.some((m) => isRecord(m) && m.permission === 'owner'
        && isRecord(m.workspace) && textOf(m.workspace.slug)?.toLowerCase() === owner.toLowerCase()
        && isRecord(m.user) && m.user.uuid === forgeUserId);
    },

    async findRepo(owner, fullName) {
      const [workspace, slug, ...rest] = fullName.split('/');
      if (!workspace || !slug || rest.length > 0 || workspace.toLowerCase() !== owner.toLowerCase()) return null;
      const answer = await forgeCall(call, `${api}/repositories/${workspacePath(workspace)}/${encodeURIComponent(slug.toLowerCase())}`, { headers: bearer(botToken) }, `looking up ${fullName}`);
      if (answer.status === 404) return null;
      const body = ok(answer, `looking up ${fullName}`);
      if (!isRecord(body)) return null;
      const found = repoOf(body);
      return found.fullName.toLowerCase().startsWith(`${owner.toLowerCase()}/`) ? found : null;
    },

    verifyHook({ headers, raw }) {
      // Bitbucket Cloud signs a webhook with a secret as X-Hub-Signature: "sha256=" and the hex HMAC-SHA256 of the body.
      const given = headerOf(headers, 'x-hub-signature');
      return given !== undefined && safeEqual(given.trim().toLowerCase(), `sha256=${hmacHex(webhookSecret, raw)}`);
    },

    describeHook({ headers }) {
      // X-Request-UUID names the event's request; Bitbucket's own retries (X-Attempt-Number 2, 3) carry the same one.
      return { deliveryId: headerOf(headers, 'x-request-uuid') ?? '', event: headerOf(headers, 'x-event-key') ?? '' };
    },

    route(event, payload) {
      return bitbucketRoute(event, payload);
    },
  };
}

/** Repository events re-read the workspace's repositories; a transfer or rename keeps the uuid, so the same row follows it. */
function bitbucketRoute(event: string, payload: unknown): HookRoute | null {
  if (!['repo:created', 'repo:updated', 'repo:deleted', 'repo:transfer'].includes(event) || !isRecord(payload) || !isRecord(payload.repository)) return null;
  const repository = payload.repository;
  const owner = (isRecord(repository.workspace) ? textOf(repository.workspace.slug) : null) ?? textOf(repository.full_name)?.split('/')[0] ?? null;
  return owner ? { owner, parts: ['repos'] } : null;
}
