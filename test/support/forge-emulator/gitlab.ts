/**
 * GitLab's REST API v4 as a group access token and its signed-in users see it, following
 * docs.gitlab.com: "Groups API" (GET /groups/:id, /groups/:id/projects?include_subgroups=true,
 * /groups/:id/subgroups), "Group and project members API" (/groups/:id/members (direct),
 * /groups/:id/members/all (inherited too), /groups/:id/members/all/:user_id, /projects/:id/members/all;
 * access levels 10 Guest, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner), "REST API" pagination
 * (page/per_page with X-Page, X-Per-Page, X-Next-Page (empty on the last page), X-Total,
 * X-Total-Pages and Link), "Rate limits" (429 with Retry-After and RateLimit-* headers), and
 * "System hooks" (X-Gitlab-Token, X-Gitlab-Event: System Hook, X-Gitlab-Event-UUID).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { linkHeader, pageOf, startServer, type Answer, type EmulatorServer, type Fault } from './server.js';

export interface GlProject { id: number; path: string; default_branch: string; visibility: 'public' | 'internal' | 'private'; archived: boolean }
export interface GlGroup {
  id: number;
  path: string;
  name: string;
  parent: GlGroup | null;
  projects: GlProject[];
  /** user id -> access level */
  members: Map<number, number>;
}

export interface GitlabEmulator extends EmulatorServer {
  apiUrl: string;
  /** The group access token the service syncs with. */
  botToken: string;
  users: Map<number, string>;
  addGroup(path: string, parent?: GlGroup): GlGroup;
  addUser(id: number, username: string): void;
  tokenFor(userId: number): string;
  /** A system hook delivery, with X-Gitlab-Token `token` (none when null). */
  hook(payload: unknown, opts: { token: string | null; uuid?: string }): { headers: Record<string, string>; payload: string };
  nextId(): number;
}

const notFound = (what: string): Answer => ({ status: 404, body: { message: `404 ${what} Not Found` } });
const unauthorized: Answer = { status: 401, body: { message: '401 Unauthorized' } };

export async function startGitlabEmulator(opts: { pageSize?: number } = {}): Promise<GitlabEmulator> {
  const maxPerPage = opts.pageSize ?? 100;
  const botToken = `glpat-${randomBytes(12).toString('base64url')}`;
  const groups: GlGroup[] = [];
  const users = new Map<number, string>();
  const userTokens = new Map<string, number>();
  let ids = 9000;
  let apiUrl = '';

  const fullPath = (g: GlGroup): string => (g.parent ? `${fullPath(g.parent)}/${g.path}` : g.path);
  const descendants = (g: GlGroup): GlGroup[] => groups.filter((x) => x.parent === g).flatMap((x) => [x, ...descendants(x)]);
  const ancestors = (g: GlGroup): GlGroup[] => (g.parent ? [g.parent, ...ancestors(g.parent)] : []);
  const groupOf = (id: string) => groups.find((g) => String(g.id) === id || fullPath(g).toLowerCase() === decodeURIComponent(id).toLowerCase());
  const allMembers = (g: GlGroup) => {
    const merged = new Map<number, number>();
    for (const x of [g, ...ancestors(g)]) for (const [id, level] of x.members) merged.set(id, Math.max(merged.get(id) ?? 0, level));
    return merged;
  };
  const projectJson = (g: GlGroup, p: GlProject) => ({
    id: p.id, name: p.path, path: p.path, path_with_namespace: `${fullPath(g)}/${p.path}`, default_branch: p.default_branch,
    visibility: p.visibility, archived: p.archived, web_url: `https://gitlab.example/${fullPath(g)}/${p.path}`, namespace: { id: g.id, full_path: fullPath(g) },
  });
  const memberJson = ([id, level]: [number, number]) => ({ id, username: users.get(id) ?? `user${id}`, name: users.get(id) ?? '', state: 'active', access_level: level });
  const groupJson = (g: GlGroup) => ({ id: g.id, name: g.name, path: g.path, full_path: fullPath(g), parent_id: g.parent?.id ?? null, description: '', visibility: 'private' });

  function paged<T>(path: string, query: URLSearchParams, items: T[], present: (t: T) => unknown): Answer {
    const { page, perPage, last, slice } = pageOf(items, query, maxPerPage);
    const headers: Record<string, string> = {
      'x-page': String(page), 'x-per-page': String(perPage), 'x-next-page': page < last ? String(page + 1) : '', 'x-prev-page': page > 1 ? String(page - 1) : '',
      'x-total': String(items.length), 'x-total-pages': String(last),
    };
    const link = linkHeader(`${apiUrl}${path}`, query, page, last);
    if (link) headers.link = link;
    return { status: 200, body: slice.map(present), headers };
  }

  const server = await startServer(({ method, path, query, headers }) => {
    const p = path.replace(/^\/api\/v4/, '');
    const bearer = String(headers.authorization ?? '').replace(/^Bearer /, '');
    const asBot = headers['private-token'] === botToken || bearer === botToken;
    const asUser = userTokens.get(bearer);
    if (!asBot && asUser === undefined) return unauthorized;
    if (method !== 'GET') return notFound('Endpoint');
    let m: RegExpExecArray | null;
    if ((m = /^\/groups\/([^/]+)\/members\/all\/(\d+)$/.exec(p))) {
      const g = groupOf(m[1]!);
      const level = g ? allMembers(g).get(Number(m[2])) : undefined;
      // A user who is no member of the group does not see it.
      if (!g || (!asBot && !allMembers(g).has(asUser!))) return notFound('Group');
      return level === undefined ? notFound('Member') : { status: 200, body: memberJson([Number(m[2]), level]) };
    }
    if ((m = /^\/groups\/([^/]+)(?:\/(projects|members|members\/all|subgroups))?$/.exec(p))) {
      const g = groupOf(m[1]!);
      if (!g || !asBot) return notFound('Group');
      if (!m[2]) return { status: 200, body: groupJson(g) };
      if (m[2] === 'projects') {
        const within = query.get('include_subgroups') === 'true' ? [g, ...descendants(g)] : [g];
        return paged(p, query, within.flatMap((x) => x.projects.map((pr) => [x, pr] as const)), ([x, pr]) => projectJson(x, pr));
      }
      if (m[2] === 'members') return paged(p, query, [...g.members], memberJson);
      if (m[2] === 'members/all') return paged(p, query, [...allMembers(g)], memberJson);
      return paged(p, query, groups.filter((x) => x.parent === g), groupJson);
    }
    if ((m = /^\/projects\/([^/]+)(\/members\/all)?$/.exec(p))) {
      const key = decodeURIComponent(m[1]!).toLowerCase();
      const found = groups.flatMap((g) => g.projects.map((pr) => [g, pr] as const)).find(([g, pr]) => String(pr.id) === key || `${fullPath(g)}/${pr.path}`.toLowerCase() === key);
      if (!found || !asBot) return notFound('Project');
      return m[2] ? paged(p, query, [...allMembers(found[0])], memberJson) : { status: 200, body: projectJson(found[0], found[1]) };
    }
    return notFound('Endpoint');
  }, (fault: Fault): Answer => {
    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    if (fault === 'error') return { status: 502, body: '<html><body>502 Bad Gateway</body></html>' };
    return { status: 429, body: 'Retry later\n', headers: { 'retry-after': '1', 'ratelimit-limit': '600', 'ratelimit-remaining': '0', 'ratelimit-reset': reset, 'ratelimit-observed': '600' } };
  });
  apiUrl = `${server.origin}/api/v4`;

  return {
    ...server,
    apiUrl,
    botToken,
    users,
    addGroup(path, parent) {
      const g: GlGroup = { id: ++ids, path, name: path, parent: parent ?? null, projects: [], members: new Map() };
      groups.push(g);
      return g;
    },
    addUser(id, username) {
      users.set(id, username);
    },
    tokenFor(userId) {
      const token = `glo-${randomBytes(12).toString('base64url')}`;
      userTokens.set(token, userId);
      return token;
    },
    hook(payload, o) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'GitLab/17.5.0', 'x-gitlab-event': 'System Hook', 'x-gitlab-event-uuid': o.uuid ?? randomUUID(), 'x-gitlab-instance': 'https://gitlab.example' };
      if (o.token !== null) headers['x-gitlab-token'] = o.token;
      return { headers, payload: JSON.stringify(payload) };
    },
    nextId: () => ++ids,
  };
}
