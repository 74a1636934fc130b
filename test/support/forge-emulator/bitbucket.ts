/**
 * Bitbucket Cloud's REST API 2.0 as a workspace access token and signed-in users see it, following
 * developer.atlassian.com/cloud/bitbucket/rest: "Pagination" (a page object {pagelen, size, page,
 * values, next}), GET /2.0/repositories/{workspace} (uuid, full_name, slug, mainbranch, is_private),
 * /2.0/repositories/{workspace}/{repo_slug}, /2.0/workspaces/{workspace}/permissions (workspace_membership:
 * permission owner | collaborator | member), /2.0/user, /2.0/user/emails and
 * /2.0/user/permissions/workspaces?q=workspace.slug="…"; error bodies {type: "error", error: {message}};
 * "API request limits" (a 429 "Rate limit for this resource has been exceeded", naming no wait);
 * OAuth 2.0 sign-in ("Use OAuth on Bitbucket Cloud": /site/oauth2/authorize, /site/oauth2/access_token
 * with the consumer as HTTP Basic); webhooks ("Manage webhooks", "Event payloads": X-Event-Key,
 * X-Request-UUID, X-Hook-UUID, X-Attempt-Number, and X-Hub-Signature "sha256=" + hex HMAC-SHA256 of
 * the body when the webhook has a secret).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { startServer, type Answer, type EmulatorServer } from './server.js';

export type BbPermission = 'owner' | 'collaborator' | 'member';
export interface BbRepo { uuid: string; slug: string; mainbranch: string | null; is_private: boolean }
export interface BbWorkspace { uuid: string; slug: string; name: string; repos: BbRepo[]; /** user uuid -> permission */ members: Map<string, BbPermission> }

export interface BitbucketEmulator extends EmulatorServer {
  /** The provider's url (OAuth endpoints hang off it). */
  url: string;
  /** The provider's api_url (the API's paths carry /2.0). */
  apiUrl: string;
  /** The workspace access token. */
  botToken: string;
  /** user uuid -> nickname */
  users: Map<string, string>;
  addWorkspace(slug: string): BbWorkspace;
  addUser(nickname: string): string;
  /** A user's OAuth access token, as sign-in would have issued it. */
  tokenFor(userUuid: string): string;
  /** Who signs in at the next authorize requests. */
  signInAs(userUuid: string): void;
  /** The next `count` API requests (whose path matches, if given) get Bitbucket's 429, which names no wait. */
  limit(count: number, pathMatch?: RegExp): void;
  newUuid(): string;
  /** A webhook request as Bitbucket sends it; signed with `secret` unless it is null (a webhook without a secret). */
  hook(event: string, payload: unknown, opts: { secret: string | null; requestUuid?: string; attempt?: number }): { headers: Record<string, string>; payload: string };
  repoJson(workspace: BbWorkspace, repo: BbRepo): Record<string, unknown>;
}

const error = (status: number, message: string): Answer => ({ status, body: { type: 'error', error: { message } } });
const notFound = error(404, 'Resource not found');

export async function startBitbucketEmulator(opts: { pageSize?: number; clientId?: string; clientSecret?: string } = {}): Promise<BitbucketEmulator> {
  const maxPageLen = opts.pageSize ?? 100;
  const botToken = `ATCTT3x${randomBytes(24).toString('hex')}`;
  const workspaces = new Map<string, BbWorkspace>();
  const users = new Map<string, string>();
  const userTokens = new Map<string, string>();
  const codes = new Map<string, string>();
  const limits: (RegExp | null)[] = [];
  let signingIn: string | null = null;
  let apiUrl = '';
  let url = '';

  const userJson = (uuid: string) => ({ type: 'user', uuid, nickname: users.get(uuid) ?? uuid, display_name: users.get(uuid) ?? uuid, account_id: `557058:${uuid.slice(1, 9)}` });
  const workspaceJson = (w: BbWorkspace) => ({ type: 'workspace', uuid: w.uuid, slug: w.slug, name: w.name });
  const repoJson = (w: BbWorkspace, r: BbRepo) => ({
    type: 'repository', uuid: r.uuid, slug: r.slug, name: r.slug, full_name: `${w.slug}/${r.slug}`, is_private: r.is_private,
    mainbranch: r.mainbranch === null ? null : { type: 'branch', name: r.mainbranch },
    workspace: workspaceJson(w), links: { html: { href: `https://bitbucket.org/${w.slug}/${r.slug}` } },
  });
  const paged = <T>(path: string, query: URLSearchParams, items: T[], present: (t: T) => unknown): Answer => {
    const pagelen = Math.max(1, Math.min(Number(query.get('pagelen') ?? 10) || 10, maxPageLen));
    const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
    const body: Record<string, unknown> = { pagelen, size: items.length, page, values: items.slice((page - 1) * pagelen, page * pagelen).map(present) };
    if (page * pagelen < items.length) {
      const next = new URLSearchParams(query);
      next.set('page', String(page + 1));
      body.next = `${apiUrl}/2.0${path}?${next.toString()}`;
    }
    return { status: 200, body };
  };

  const server = await startServer(({ method, path, query, headers, body }) => {
    if (path === '/site/oauth2/authorize') {
      const code = randomBytes(12).toString('hex');
      if (signingIn === null) return error(400, 'nobody signs in');
      codes.set(code, signingIn);
      const to = new URL(query.get('redirect_uri') ?? '');
      to.searchParams.set('code', code);
      if (query.get('state')) to.searchParams.set('state', query.get('state')!);
      return { status: 302, body: '', headers: { location: to.toString() } };
    }
    if (path === '/site/oauth2/access_token' && method === 'POST') {
      const basic = Buffer.from(String(headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      if (opts.clientId !== undefined && basic !== `${opts.clientId}:${opts.clientSecret}`) return { status: 401, body: { error: 'invalid_client', error_description: 'Invalid OAuth client credentials' } };
      const form = new URLSearchParams(body);
      const who = codes.get(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code' || who === undefined) return { status: 400, body: { error: 'invalid_grant', error_description: 'The specified code is not valid.' } };
      codes.delete(form.get('code')!);
      const token = randomBytes(20).toString('hex');
      userTokens.set(token, who);
      return { status: 200, body: { access_token: token, scopes: 'account email', expires_in: 7200, refresh_token: randomBytes(20).toString('hex'), token_type: 'bearer', state: 'authorization_code' } };
    }
    const p = path.replace(/^\/api\/2\.0/, '');
    if (p === path) return notFound;
    const limited = limits.findIndex((m) => m === null || m.test(path));
    if (limited !== -1) {
      limits.splice(limited, 1);
      return error(429, 'Rate limit for this resource has been exceeded');
    }
    const token = String(headers.authorization ?? '').replace(/^Bearer /, '');
    const asBot = token === botToken;
    const asUser = userTokens.get(token);
    if (!asBot && asUser === undefined) return error(401, 'Access token expired or invalid.');
    if (method !== 'GET') return notFound;
    let m: RegExpExecArray | null;
    if (asUser !== undefined) {
      if (p === '/user') return { status: 200, body: userJson(asUser) };
      if (p === '/user/emails') return paged(p, query, [], (x) => x);
      if (p === '/user/permissions/workspaces') {
        const slug = /^workspace\.slug\s*=\s*"([^"]*)"$/.exec(query.get('q') ?? '')?.[1];
        const mine = [...workspaces.values()].filter((w) => w.members.has(asUser) && (slug === undefined || w.slug === slug));
        return paged(p, query, mine, (w) => ({ type: 'workspace_membership', permission: w.members.get(asUser), user: userJson(asUser), workspace: workspaceJson(w) }));
      }
      return error(403, 'Your credentials lack one or more required privilege scopes.');
    }
    if ((m = /^\/repositories\/([^/]+)$/.exec(p))) {
      const w = workspaces.get(decodeURIComponent(m[1]!));
      return w ? paged(p, query, w.repos, (r) => repoJson(w, r)) : notFound;
    }
    if ((m = /^\/repositories\/([^/]+)\/([^/]+)$/.exec(p))) {
      const w = workspaces.get(decodeURIComponent(m[1]!));
      const key = decodeURIComponent(m[2]!);
      const repo = w?.repos.find((r) => r.slug === key || r.uuid === key);
      return w && repo ? { status: 200, body: repoJson(w, repo) } : notFound;
    }
    if ((m = /^\/workspaces\/([^/]+)\/permissions$/.exec(p))) {
      const w = workspaces.get(decodeURIComponent(m[1]!));
      return w ? paged(p, query, [...w.members], ([uuid, permission]) => ({ type: 'workspace_membership', permission, user: userJson(uuid), workspace: workspaceJson(w) })) : notFound;
    }
    return notFound;
  }, (fault): Answer => fault === 'error'
    ? { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' }
    : { status: 429, body: { type: 'error', error: { message: 'Rate limit for this resource has been exceeded' } }, headers: { 'retry-after': '1' } });
  url = server.origin;
  apiUrl = `${server.origin}/api`;

  return {
    ...server,
    url,
    apiUrl,
    botToken,
    users,
    addWorkspace(slug) {
      const w: BbWorkspace = { uuid: `{${randomUUID()}}`, slug, name: slug, repos: [], members: new Map() };
      workspaces.set(slug, w);
      return w;
    },
    addUser(nickname) {
      const uuid = `{${randomUUID()}}`;
      users.set(uuid, nickname);
      return uuid;
    },
    tokenFor(userUuid) {
      const token = randomBytes(20).toString('hex');
      userTokens.set(token, userUuid);
      return token;
    },
    signInAs(userUuid) {
      signingIn = userUuid;
    },
    limit(count, pathMatch) {
      for (let i = 0; i < count; i++) limits.push(pathMatch ?? null);
    },
    newUuid: () => `{${randomUUID()}}`,
    hook(event, payload, o) {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = {
        'content-type': 'application/json', 'user-agent': 'Bitbucket-Webhooks/2.0', 'x-event-key': event,
        'x-request-uuid': o.requestUuid ?? randomUUID(), 'x-hook-uuid': 'a7a1ef2c-6f2c-4a8e-9d5e-0b8f0a4c4d11', 'x-attempt-number': String(o.attempt ?? 1),
      };
      if (o.secret !== null) headers['x-hub-signature'] = `sha256=${createHmac('sha256', o.secret).update(body).digest('hex')}`;
      return { headers, payload: body };
    },
    repoJson,
  };
}
