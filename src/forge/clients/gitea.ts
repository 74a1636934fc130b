import type { ProviderConfig } from '../../providers-config.js';
import type { RepoRole } from '../../db/schema.js';
import { forgeCall, ForgeSyncError, idOf, isRecord, nextLink, sameOrigin, textOf, type ForgeAnswer, type ForgeCallOptions } from './http.js';
import { hmacHex, headerOf, safeEqual } from './signatures.js';
import type { ForgePerson, ForgeRepo, ForgeSyncClient, ForgeTeam, HookRoute, Snapshot } from './types.js';

/** Gitea caps `limit` at its MAX_RESPONSE_ITEMS (50 by default). */
const LIMIT = 50;

/**
 * Gitea and Forgejo (a Gitea fork, the same /api/v1) with an access token sent as
 * "Authorization: token …". Lists are paged by page/limit with a Link header. An organisation's
 * owners are the members of its teams whose permission is "owner" (the Owners team).
 */
export function giteaSync(config: ProviderConfig, call: ForgeCallOptions): ForgeSyncClient {
  const sync = config.sync;
  if (sync?.kind !== 'token') throw new Error(`provider ${config.id} has no sync token configured`);
  const api = config.api_url;
  const headers = (token: string) => ({ authorization: `token ${token}` });

  function ok(answer: ForgeAnswer, doing: string): unknown {
    if (answer.status < 200 || answer.status >= 300) throw new ForgeSyncError(`${config.name} answered HTTP ${answer.status} while ${doing}`, answer.status);
    return answer.body;
  }

  async function list(path: string, doing: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let url: string | null = `${api}${path}${path.includes('?') ? '&' : '?'}limit=${LIMIT}&page=1`;
    while (url !== null) {
      const answer = await forgeCall(call, url, { headers: headers(sync!.kind === 'token' ? sync!.token : '') }, doing);
      const page = ok(answer, doing);
      if (!Array.isArray(page)) throw new ForgeSyncError(`${config.name} sent something other than a list while ${doing}`);
      items.push(...page.filter(isRecord));
      const next = nextLink(answer.headers);
      url = next !== null && sameOrigin(next, api) && page.length > 0 ? next : null;
    }
    return items;
  }

  const repoOf = (r: Record<string, unknown>): ForgeRepo => ({
    forgeId: idOf(r.id, 'a repository', config.name),
    name: textOf(r.name) ?? '',
    fullName: textOf(r.full_name) ?? '',
    defaultBranch: textOf(r.default_branch),
    visibility: r.private === true ? 'private' : r.internal === true ? 'internal' : 'public',
    archived: r.archived === true,
    url: textOf(r.html_url),
  });
  const personOf = (u: Record<string, unknown>): ForgePerson => ({ forgeUserId: idOf(u.id, 'a user', config.name), login: textOf(u.login) ?? textOf(u.username) ?? '' });

  return {
    async readSnapshot(owner, parts) {
      const org = encodeURIComponent(owner);
      const snapshot: Snapshot = {};
      if (parts.includes('repos')) snapshot.repos = (await list(`/orgs/${org}/repos`, `listing the repositories of ${owner}`)).map(repoOf);
      if (parts.includes('members') || parts.includes('teams')) {
        const teams = await list(`/orgs/${org}/teams`, `listing the teams of ${owner}`);
        const owners = new Set<string>();
        const synced: ForgeTeam[] = [];
        for (const team of teams) {
          const id = idOf(team.id, 'a team', config.name);
          const members = (await list(`/teams/${id}/members`, `listing the members of team ${id}`)).map(personOf);
          if (team.permission === 'owner') for (const m of members) owners.add(m.forgeUserId);
          const role = teamRole(textOf(team.permission));
          if (parts.includes('teams') && team.permission !== 'owner') {
            const repos = role === null ? [] : (await list(`/teams/${id}/repos`, `listing the repositories of team ${id}`)).map((r) => ({ forgeId: idOf(r.id, 'a repository', config.name), role }));
            synced.push({ forgeId: id, name: textOf(team.name) ?? id, description: textOf(team.description) ?? '', members, repos });
          }
        }
        if (parts.includes('teams')) snapshot.teams = synced;
        if (parts.includes('members')) {
          snapshot.members = (await list(`/orgs/${org}/members`, `listing the members of ${owner}`)).map((u) => {
            const person = personOf(u);
            return { ...person, role: owners.has(person.forgeUserId) ? 'owner' : 'member' };
          });
        }
      }
      return snapshot;
    },

    async isAdmin(owner, userToken) {
      const me = await forgeCall(call, `${api}/user`, { headers: headers(userToken) }, 'reading your account');
      if (me.status !== 200 || !isRecord(me.body) || typeof me.body.login !== 'string') return false;
      const answer = await forgeCall(call, `${api}/users/${encodeURIComponent(me.body.login)}/orgs/${encodeURIComponent(owner)}/permissions`, { headers: headers(userToken) }, `checking your role in ${owner}`);
      if (answer.status === 401 || answer.status === 403 || answer.status === 404) return false;
      const body = ok(answer, `checking your role in ${owner}`);
      return isRecord(body) && (body.is_owner === true || body.is_admin === true);
    },

    async findRepo(owner, fullName) {
      const [ownerPart, name, ...rest] = fullName.split('/');
      if (!ownerPart || !name || rest.length > 0 || ownerPart.toLowerCase() !== owner.toLowerCase()) return null;
      const answer = await forgeCall(call, `${api}/repos/${encodeURIComponent(ownerPart)}/${encodeURIComponent(name)}`, { headers: headers(sync.token) }, `looking up ${fullName}`);
      if (answer.status === 404) return null;
      const body = ok(answer, `looking up ${fullName}`);
      return isRecord(body) ? repoOf(body) : null;
    },

    verifyHook({ headers: h, raw }) {
      // Gitea: X-Gitea-Signature, Forgejo: X-Forgejo-Signature (and X-Gitea-Signature): hex HMAC-SHA256 of the body.
      const given = headerOf(h, config.type === 'forgejo' ? 'x-forgejo-signature' : 'x-gitea-signature') ?? headerOf(h, 'x-gitea-signature');
      return given !== undefined && safeEqual(given.toLowerCase(), hmacHex(sync.webhookSecret, raw));
    },

    describeHook({ headers: h }) {
      return {
        deliveryId: headerOf(h, 'x-forgejo-delivery') ?? headerOf(h, 'x-gitea-delivery') ?? '',
        event: headerOf(h, 'x-forgejo-event') ?? headerOf(h, 'x-gitea-event') ?? '',
      };
    },

    route(event, payload) {
      return giteaRoute(event, payload);
    },
  };
}

/** A team's unit permission as a grant: read → read, write → triage, admin → admin. */
function teamRole(permission: string | null): RepoRole | null {
  if (permission === 'admin' || permission === 'owner') return 'admin';
  if (permission === 'write') return 'triage';
  if (permission === 'read') return 'read';
  return null;
}

function giteaRoute(event: string, payload: unknown): HookRoute | null {
  if (!isRecord(payload)) return null;
  if (event !== 'repository' && event !== 'organization' && event !== 'member') return null;
  const org = isRecord(payload.organization) ? textOf(payload.organization.username) ?? textOf(payload.organization.login) : null;
  const repoOwner = isRecord(payload.repository) && isRecord(payload.repository.owner) ? textOf(payload.repository.owner.login) ?? textOf(payload.repository.owner.username) : null;
  const owner = org ?? repoOwner;
  if (!owner) return null;
  return { owner, parts: event === 'repository' ? ['repos', 'teams'] : ['members', 'teams'] };
}
