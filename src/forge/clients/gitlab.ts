import { createHash } from 'node:crypto';
import type { ProviderConfig } from '../../providers-config.js';
import type { RepoRole } from '../../db/schema.js';
import { forgeCall, ForgeSyncError, idOf, isRecord, textOf, type ForgeAnswer, type ForgeCallOptions } from './http.js';
import { headerOf, safeEqual } from './signatures.js';
import type { ForgePerson, ForgeRepo, ForgeSyncClient, ForgeTeam, HookRoute, Snapshot, SyncPart } from './types.js';

const PER_PAGE = 100;
/** GitLab access levels (docs.gitlab.com, "Members API"). */
const OWNER = 50;
const MAINTAINER = 40;
const DEVELOPER = 30;
const REPORTER = 20;

/**
 * GitLab (gitlab.com or self-managed) with a group or bot access token sent as PRIVATE-TOKEN. Lists
 * are paged by `page`/`per_page`, the next page named by X-Next-Page (empty on the last).
 */
export function gitlabSync(config: ProviderConfig, call: ForgeCallOptions): ForgeSyncClient {
  const sync = config.sync;
  if (sync?.kind !== 'token') throw new Error(`provider ${config.id} has no sync token configured`);
  const api = config.api_url;
  const botHeaders = { 'private-token': sync.token };

  function ok(answer: ForgeAnswer, doing: string): unknown {
    if (answer.status < 200 || answer.status >= 300) {
      const message = isRecord(answer.body) && typeof answer.body.message === 'string' ? `: ${answer.body.message.slice(0, 200)}` : '';
      throw new ForgeSyncError(`${config.name} answered HTTP ${answer.status} while ${doing}${message}`, answer.status);
    }
    return answer.body;
  }

  async function list(path: string, doing: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let page = '1'; page !== '';) {
      const url = `${api}${path}${path.includes('?') ? '&' : '?'}per_page=${PER_PAGE}&page=${encodeURIComponent(page)}`;
      const answer = await forgeCall(call, url, { headers: botHeaders }, doing);
      const body = ok(answer, doing);
      if (!Array.isArray(body)) throw new ForgeSyncError(`${config.name} sent something other than a list while ${doing}`);
      items.push(...body.filter(isRecord));
      const next = answer.headers['x-next-page'];
      const value = (Array.isArray(next) ? next[0] : next)?.trim() ?? '';
      page = /^\d+$/.test(value) && value !== page ? value : '';
    }
    return items;
  }

  const groupPath = (owner: string) => `/groups/${encodeURIComponent(owner)}`;
  const repoOf = (p: Record<string, unknown>): ForgeRepo => ({
    forgeId: idOf(p.id, 'a project', config.name),
    name: textOf(p.path) ?? textOf(p.name) ?? '',
    fullName: textOf(p.path_with_namespace) ?? '',
    defaultBranch: textOf(p.default_branch),
    visibility: textOf(p.visibility),
    archived: p.archived === true,
    url: textOf(p.web_url),
  });
  const personOf = (m: Record<string, unknown>): ForgePerson => ({ forgeUserId: idOf(m.id, 'a member', config.name), login: textOf(m.username) ?? '' });
  const level = (m: Record<string, unknown>) => (typeof m.access_level === 'number' ? m.access_level : 0);

  return {
    async readSnapshot(owner, parts) {
      const group = groupPath(owner);
      const snapshot: Snapshot = {};
      if (parts.includes('repos')) {
        snapshot.repos = (await list(`${group}/projects?include_subgroups=true&with_shared=false`, `listing the projects of ${owner}`)).map(repoOf);
      }
      if (parts.includes('members')) {
        // members/all: direct and inherited members; Owner is owner here, Maintainer and below member.
        snapshot.members = (await list(`${group}/members/all`, `listing the members of ${owner}`))
          .filter((m) => m.state === undefined || m.state === 'active')
          .map((m) => ({ ...personOf(m), role: level(m) >= OWNER ? 'owner' : 'member' }));
      }
      if (parts.includes('teams')) {
        const teams: ForgeTeam[] = [];
        for (const sub of await list(`${group}/subgroups`, `listing the subgroups of ${owner}`)) {
          const id = idOf(sub.id, 'a subgroup', config.name);
          const direct = await list(`/groups/${id}/members`, `listing the members of subgroup ${id}`);
          const lowest = direct.length === 0 ? 0 : Math.min(...direct.map(level));
          const role = roleOf(lowest);
          const projects = role === null ? [] : await list(`/groups/${id}/projects?include_subgroups=true`, `listing the projects of subgroup ${id}`);
          teams.push({
            forgeId: id,
            name: textOf(sub.name) ?? textOf(sub.full_path) ?? id,
            description: textOf(sub.description) ?? '',
            members: direct.map(personOf),
            repos: role === null ? [] : projects.map((p) => ({ forgeId: idOf(p.id, 'a project', config.name), role })),
          });
        }
        snapshot.teams = teams;
      }
      return snapshot;
    },

    async isAdmin(owner, userToken, forgeUserId) {
      const answer = await forgeCall(call, `${api}${groupPath(owner)}/members/all/${encodeURIComponent(forgeUserId)}`, { headers: { authorization: `Bearer ${userToken}` } }, `checking your membership of ${owner}`);
      if (answer.status === 401 || answer.status === 403 || answer.status === 404) return false;
      const body = ok(answer, `checking your membership of ${owner}`);
      return isRecord(body) && level(body) >= OWNER;
    },

    async findRepo(owner, fullName) {
      if (!fullName.toLowerCase().startsWith(`${owner.toLowerCase()}/`)) return null;
      const answer = await forgeCall(call, `${api}/projects/${encodeURIComponent(fullName)}`, { headers: botHeaders }, `looking up ${fullName}`);
      if (answer.status === 404) return null;
      const body = ok(answer, `looking up ${fullName}`);
      if (!isRecord(body)) return null;
      const found = repoOf(body);
      return found.fullName.toLowerCase().startsWith(`${owner.toLowerCase()}/`) ? found : null;
    },

    verifyHook({ headers }) {
      // GitLab sends the configured secret token as X-Gitlab-Token (docs: "Webhooks", "Validate payloads by using a secret token").
      const given = headerOf(headers, 'x-gitlab-token');
      return given !== undefined && safeEqual(given, sync.webhookSecret);
    },

    describeHook({ headers, raw }) {
      const id = headerOf(headers, 'x-gitlab-event-uuid') ?? headerOf(headers, 'idempotency-key') ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`;
      return { deliveryId: id, event: headerOf(headers, 'x-gitlab-event') ?? '' };
    },

    route(_event, payload) {
      return gitlabRoute(payload);
    },
  };
}

/** The lowest access level among a subgroup's direct members, as a grant on its projects. */
function roleOf(accessLevel: number): RepoRole | null {
  if (accessLevel >= MAINTAINER) return 'admin';
  if (accessLevel >= DEVELOPER) return 'triage';
  if (accessLevel >= REPORTER) return 'read';
  return null;
}

/** System hooks (docs.gitlab.com, "System hooks"): the event_name says what changed, a path says where. */
function gitlabRoute(payload: unknown): HookRoute | null {
  if (!isRecord(payload)) return null;
  const name = textOf(payload.event_name) ?? textOf(payload.object_kind) ?? '';
  let parts: SyncPart[] | null = null;
  if (name.startsWith('project_') || name === 'project') parts = ['repos', 'teams'];
  else if (name.startsWith('user_') && name.endsWith('_group')) parts = ['members', 'teams'];
  else if (name.startsWith('user_') && name.endsWith('_team')) parts = ['teams'];
  else if (name.startsWith('group_') || name.startsWith('subgroup_')) parts = ['repos', 'teams'];
  if (parts === null) return null;
  const project = isRecord(payload.project) ? textOf(payload.project.path_with_namespace) : null;
  const path = textOf(payload.path_with_namespace) ?? textOf(payload.full_path) ?? textOf(payload.group_path) ?? textOf(payload.project_path_with_namespace) ?? project
    ?? textOf(payload.old_path_with_namespace);
  return path ? { owner: path, parts, prefix: true } : null;
}
