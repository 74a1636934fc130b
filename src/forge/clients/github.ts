import type { ProviderConfig } from '../../providers-config.js';
import type { RepoRole } from '../../db/schema.js';
import { GITHUB_API_VERSION, GITHUB_JSON, GithubAppAnswerError, installationTokens } from '../../github-app/installation-tokens.js';
import { forgeCall, ForgeSyncError, idOf, isRecord, nextLink, sameOrigin, textOf, type ForgeAnswer, type ForgeCallOptions } from './http.js';
import { hmacHex, headerOf, safeEqual } from './signatures.js';
import type { ForgeMember, ForgePerson, ForgeRepo, ForgeSyncClient, ForgeTeam, HookRoute, Snapshot, SyncPart } from './types.js';

const PER_PAGE = 100;

/**
 * GitHub through a GitHub App: the organisation's installation token (github-app/) reads its
 * repositories, members and teams.
 */
export function githubSync(config: ProviderConfig, call: ForgeCallOptions): ForgeSyncClient {
  const sync = config.sync;
  if (sync?.kind !== 'github_app') throw new Error(`provider ${config.id} has no GitHub App configured`);
  const api = config.api_url;
  const headers = (token: string) => ({ authorization: `Bearer ${token}`, accept: GITHUB_JSON, 'x-github-api-version': GITHUB_API_VERSION });

  // A 404 finding the installation is the one refusal worth its own words: the App is not installed there.
  const tokens = installationTokens({ name: config.name, apiUrl: api, appId: sync.appId, privateKey: sync.privateKey }, async (r) => {
    const answer = await forgeCall(call, r.url, { method: r.method, headers: headers(r.jwt) }, r.doing);
    if (answer.status === 404 && r.step === 'installation') throw new ForgeSyncError(`The GitHub App is not installed on ${r.owner}; install it there first`, 404);
    return ok(answer, r.doing);
  }, call.clock);

  async function installationToken(owner: string): Promise<string> {
    try {
      return await tokens.forOrg(owner);
    } catch (error) {
      throw error instanceof GithubAppAnswerError ? new ForgeSyncError(error.message) : error;
    }
  }

  function ok(answer: ForgeAnswer, doing: string): unknown {
    if (answer.status < 200 || answer.status >= 300) {
      const message = isRecord(answer.body) && typeof answer.body.message === 'string' ? `: ${answer.body.message.slice(0, 200)}` : '';
      throw new ForgeSyncError(`${config.name} answered HTTP ${answer.status} while ${doing}${message}`, answer.status);
    }
    return answer.body;
  }

  /** Every page of a list, following Link rel="next" on the API's own origin. */
  async function list(token: string, path: string, doing: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let url: string | null = `${api}${path}${path.includes('?') ? '&' : '?'}per_page=${PER_PAGE}`;
    while (url !== null) {
      const answer = await forgeCall(call, url, { headers: headers(token) }, doing);
      const page = ok(answer, doing);
      if (!Array.isArray(page)) throw new ForgeSyncError(`${config.name} sent something other than a list while ${doing}`);
      items.push(...page.filter(isRecord));
      const next = nextLink(answer.headers);
      url = next !== null && sameOrigin(next, api) ? next : null;
    }
    return items;
  }

  const repoOf = (r: Record<string, unknown>): ForgeRepo => ({
    forgeId: idOf(r.id, 'a repository', config.name),
    name: textOf(r.name) ?? '',
    fullName: textOf(r.full_name) ?? '',
    defaultBranch: textOf(r.default_branch),
    visibility: textOf(r.visibility) ?? (r.private === true ? 'private' : 'public'),
    archived: r.archived === true,
    url: textOf(r.html_url),
  });
  const personOf = (u: Record<string, unknown>): ForgePerson => ({ forgeUserId: idOf(u.id, 'a user', config.name), login: textOf(u.login) ?? '' });

  return {
    async readSnapshot(owner, parts) {
      const token = await installationToken(owner);
      const org = encodeURIComponent(owner);
      const snapshot: Snapshot = {};
      if (parts.includes('repos')) snapshot.repos = (await list(token, `/orgs/${org}/repos?type=all`, `listing the repositories of ${owner}`)).map(repoOf);
      if (parts.includes('members')) {
        const admins = new Set((await list(token, `/orgs/${org}/members?role=admin`, `listing the owners of ${owner}`)).map((u) => personOf(u).forgeUserId));
        snapshot.members = (await list(token, `/orgs/${org}/members?role=all`, `listing the members of ${owner}`)).map((u): ForgeMember => {
          const person = personOf(u);
          return { ...person, role: admins.has(person.forgeUserId) ? 'owner' : 'member' };
        });
      }
      if (parts.includes('teams')) {
        const teams: ForgeTeam[] = [];
        for (const team of await list(token, `/orgs/${org}/teams`, `listing the teams of ${owner}`)) {
          const slug = encodeURIComponent(textOf(team.slug) ?? '');
          const members = (await list(token, `/orgs/${org}/teams/${slug}/members`, `listing the members of team ${slug}`)).map(personOf);
          const repos = (await list(token, `/orgs/${org}/teams/${slug}/repos`, `listing the repositories of team ${slug}`))
            .map((r) => ({ forgeId: idOf(r.id, 'a repository', config.name), role: roleOf(r) }))
            .filter((r): r is { forgeId: string; role: RepoRole } => r.role !== null);
          teams.push({ forgeId: idOf(team.id, 'a team', config.name), name: textOf(team.name) ?? slug, description: textOf(team.description) ?? '', members, repos });
        }
        snapshot.teams = teams;
      }
      return snapshot;
    },

    async isAdmin(owner, userToken) {
      // GET /user/memberships/orgs/{org}: the caller's own membership (needs read:org).
      const answer = await forgeCall(call, `${api}/user/memberships/orgs/${encodeURIComponent(owner)}`, { headers: headers(userToken) }, `checking your membership of ${owner}`);
      if (answer.status === 401 || answer.status === 403 || answer.status === 404) return false;
      const body = ok(answer, `checking your membership of ${owner}`);
      return isRecord(body) && body.state === 'active' && body.role === 'admin';
    },

    async findRepo(owner, fullName) {
      const [ownerPart, name, ...rest] = fullName.split('/');
      if (!ownerPart || !name || rest.length > 0 || ownerPart.toLowerCase() !== owner.toLowerCase()) return null;
      const token = await installationToken(owner);
      const answer = await forgeCall(call, `${api}/repos/${encodeURIComponent(ownerPart)}/${encodeURIComponent(name)}`, { headers: headers(token) }, `looking up ${fullName}`);
      if (answer.status === 404) return null;
      const repo = ok(answer, `looking up ${fullName}`);
      if (!isRecord(repo)) return null;
      const found = repoOf(repo);
      // A repository moved away answers from its new owner: not this org's.
      return found.fullName.toLowerCase().startsWith(`${owner.toLowerCase()}/`) ? found : null;
    },

    verifyHook({ headers: h, raw }) {
      // X-Hub-Signature-256: "sha256=" + HMAC-SHA256 of the raw body (docs: "Validating webhook deliveries").
      const given = headerOf(h, 'x-hub-signature-256');
      return given !== undefined && safeEqual(given, `sha256=${hmacHex(sync.webhookSecret, raw)}`);
    },

    describeHook({ headers: h }) {
      return { deliveryId: headerOf(h, 'x-github-delivery') ?? '', event: headerOf(h, 'x-github-event') ?? '' };
    },

    route(event, payload) {
      return githubRoute(event, payload);
    },
  };
}

/** GitHub's repository permissions to ours: pull → read; triage, push, maintain → triage; admin → admin. */
function roleOf(repo: Record<string, unknown>): RepoRole | null {
  const roleName = textOf(repo.role_name);
  const perms = isRecord(repo.permissions) ? repo.permissions : {};
  if (roleName === 'admin' || perms.admin === true) return 'admin';
  if (roleName === 'maintain' || roleName === 'write' || roleName === 'push' || roleName === 'triage' || perms.maintain === true || perms.push === true || perms.triage === true) return 'triage';
  if (roleName === 'read' || roleName === 'pull' || perms.pull === true) return 'read';
  return null;
}

const GITHUB_EVENTS: Record<string, SyncPart[]> = {
  repository: ['repos', 'teams'],
  installation_repositories: ['repos'],
  organization: ['members', 'teams'],
  member: ['members', 'teams'],
  membership: ['teams'],
  team: ['teams'],
  team_add: ['teams'],
};

function githubRoute(event: string, payload: unknown): HookRoute | null {
  const parts = GITHUB_EVENTS[event];
  if (!parts || !isRecord(payload)) return null;
  const org = isRecord(payload.organization) ? textOf(payload.organization.login) : null;
  const installation = isRecord(payload.installation) && isRecord(payload.installation.account) ? textOf(payload.installation.account.login) : null;
  const owner = org ?? installation;
  return owner ? { owner, parts } : null;
}
