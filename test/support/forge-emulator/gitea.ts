/**
 * Gitea's (and Forgejo's) REST API v1 as a token sees it, following the API reference
 * (gitea.com/api/swagger): GET /orgs/{org}/repos, /orgs/{org}/members, /orgs/{org}/teams
 * (permission "owner" on the Owners team), /teams/{id}/members, /teams/{id}/repos, /repos/{owner}/{repo},
 * /user, /users/{username}/orgs/{org}/permissions; paging by page/limit with Link and X-Total-Count;
 * "Authorization: token …". Webhooks ("Webhooks" docs): X-Gitea-Signature / X-Forgejo-Signature (hex
 * HMAC-SHA256 of the body), X-Gitea-Delivery, X-Gitea-Event (Forgejo: the X-Forgejo-* names too).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { linkHeader, pageOf, startServer, type Answer, type EmulatorServer } from './server.js';

export interface GtRepo { id: number; name: string; default_branch: string; private: boolean; archived: boolean }
export interface GtTeam { id: number; name: string; permission: 'owner' | 'admin' | 'write' | 'read'; members: Set<number>; repos: Set<number> }
export interface GtOrg { id: number; username: string; repos: GtRepo[]; members: Set<number>; teams: GtTeam[] }

export interface GiteaEmulator extends EmulatorServer {
  apiUrl: string;
  botToken: string;
  users: Map<number, string>;
  addOrg(name: string): GtOrg;
  tokenFor(userId: number): string;
  hook(kind: 'gitea' | 'forgejo', event: string, payload: unknown, opts: { secret: string; deliveryId?: string }): { headers: Record<string, string>; payload: string };
  nextId(): number;
}

const notFound: Answer = { status: 404, body: { message: 'The target couldn\'t be found.', url: 'https://gitea.example/api/swagger', errors: [] } };

export async function startGiteaEmulator(opts: { pageSize?: number } = {}): Promise<GiteaEmulator> {
  const maxPerPage = opts.pageSize ?? 50;
  const botToken = randomBytes(20).toString('hex');
  const orgs = new Map<string, GtOrg>();
  const users = new Map<number, string>();
  const userTokens = new Map<string, number>();
  let ids = 7000;
  let apiUrl = '';

  const userJson = (id: number) => ({ id, login: users.get(id) ?? `user${id}`, username: users.get(id) ?? `user${id}`, full_name: '', email: '' });
  const repoJson = (org: GtOrg, r: GtRepo) => ({
    id: r.id, name: r.name, full_name: `${org.username}/${r.name}`, owner: { id: org.id, login: org.username, username: org.username },
    private: r.private, internal: false, archived: r.archived, default_branch: r.default_branch, html_url: `https://gitea.example/${org.username}/${r.name}`,
  });
  const paged = <T>(path: string, query: URLSearchParams, items: T[], present: (t: T) => unknown): Answer => {
    const q = new URLSearchParams(query);
    q.set('per_page', q.get('limit') ?? '30');
    const { page, last, slice } = pageOf(items, q, maxPerPage);
    const link = linkHeader(`${apiUrl}${path}`, query, page, last);
    return { status: 200, body: slice.map(present), headers: { 'x-total-count': String(items.length), ...(link ? { link } : {}) } };
  };

  const server = await startServer(({ method, path, query, headers }) => {
    const p = path.replace(/^\/api\/v1/, '');
    const token = String(headers.authorization ?? '').replace(/^token /, '');
    const asBot = token === botToken;
    const asUser = userTokens.get(token);
    if (!asBot && asUser === undefined) return { status: 401, body: { message: 'token is required', url: 'https://gitea.example/api/swagger' } };
    if (method !== 'GET') return notFound;
    let m: RegExpExecArray | null;
    if (p === '/user' && asUser !== undefined) return { status: 200, body: userJson(asUser) };
    if ((m = /^\/users\/([^/]+)\/orgs\/([^/]+)\/permissions$/.exec(p))) {
      const org = orgs.get(m[2]!.toLowerCase());
      const id = [...users].find(([, login]) => login === m![1])?.[0];
      if (!org || id === undefined || !org.members.has(id)) return notFound;
      const isOwner = org.teams.some((t) => t.permission === 'owner' && t.members.has(id));
      return { status: 200, body: { is_owner: isOwner, is_admin: isOwner, can_write: true, can_read: true, can_create_repository: isOwner } };
    }
    if (!asBot) return notFound;
    if ((m = /^\/orgs\/([^/]+)\/(repos|members|teams)$/.exec(p))) {
      const org = orgs.get(m[1]!.toLowerCase());
      if (!org) return notFound;
      if (m[2] === 'repos') return paged(p, query, org.repos, (r) => repoJson(org, r));
      if (m[2] === 'members') return paged(p, query, [...org.members], userJson);
      return paged(p, query, org.teams, (t) => ({ id: t.id, name: t.name, description: '', permission: t.permission, includes_all_repositories: false }));
    }
    if ((m = /^\/teams\/(\d+)\/(members|repos)$/.exec(p))) {
      const found = [...orgs.values()].flatMap((o) => o.teams.map((t) => [o, t] as const)).find(([, t]) => t.id === Number(m![1]));
      if (!found) return notFound;
      const [org, team] = found;
      return m[2] === 'members' ? paged(p, query, [...team.members], userJson) : paged(p, query, org.repos.filter((r) => team.repos.has(r.id)), (r) => repoJson(org, r));
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)$/.exec(p))) {
      const org = orgs.get(m[1]!.toLowerCase());
      const repo = org?.repos.find((r) => r.name.toLowerCase() === m![2]!.toLowerCase());
      return org && repo ? { status: 200, body: repoJson(org, repo) } : notFound;
    }
    return notFound;
  }, () => ({ status: 429, body: { message: 'rate limited' }, headers: { 'retry-after': '1' } }));
  apiUrl = `${server.origin}/api/v1`;

  return {
    ...server,
    apiUrl,
    botToken,
    users,
    addOrg(name) {
      const org: GtOrg = { id: ++ids, username: name, repos: [], members: new Set(), teams: [] };
      orgs.set(name.toLowerCase(), org);
      return org;
    },
    tokenFor(userId) {
      const token = randomBytes(20).toString('hex');
      userTokens.set(token, userId);
      return token;
    },
    hook(kind, event, payload, o) {
      const body = JSON.stringify(payload);
      const signature = createHmac('sha256', o.secret).update(body).digest('hex');
      const delivery = o.deliveryId ?? randomUUID();
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-gitea-event': event, 'x-gitea-delivery': delivery, 'x-gitea-signature': signature };
      if (kind === 'forgejo') Object.assign(headers, { 'x-forgejo-event': event, 'x-forgejo-delivery': delivery, 'x-forgejo-signature': signature });
      return { headers, payload: body };
    },
    nextId: () => ++ids,
  };
}
