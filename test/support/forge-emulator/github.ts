/**
 * GitHub's REST API as a GitHub App and its signed-in users see it, following docs.github.com:
 * "Generating a JSON Web Token (JWT) for a GitHub App" (RS256, iss = app id, exp at most 10 min
 * after iat), "Apps" (GET /orgs/{org}/installation, POST /app/installations/{id}/access_tokens),
 * "Organizations/Members", "Teams", "Repositories", "Using pagination in the REST API" (Link
 * rel="next"), "Rate limits for the REST API" (primary: 403/429 + x-ratelimit-remaining 0 and
 * x-ratelimit-reset; secondary: 403 "You have exceeded a secondary rate limit", retry-after), and
 * "Webhook events and payloads" / "Validating webhook deliveries" (X-Hub-Signature-256,
 * X-GitHub-Delivery, X-GitHub-Event), and "Authorizing OAuth apps" (the web application flow, GET /user)
 * for browser sign-in.
 */
import { createHmac, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { jwtVerify } from 'jose';
import { linkHeader, pageOf, startServer, type Answer, type EmulatorServer, type Fault } from './server.js';

export type GithubPermission = 'pull' | 'triage' | 'push' | 'maintain' | 'admin';

export interface GhRepo { id: number; name: string; default_branch: string; visibility: 'public' | 'private' | 'internal'; archived: boolean }
export interface GhTeam { id: number; slug: string; name: string; description: string | null; members: Set<number>; repos: Map<number, GithubPermission> }
export interface GhOrg {
  id: number;
  login: string;
  installationId: number;
  repos: GhRepo[];
  /** user id -> role */
  members: Map<number, 'admin' | 'member'>;
  teams: GhTeam[];
}

export interface GithubEmulator extends EmulatorServer {
  apiUrl: string;
  appId: number;
  /** The app's private key as GitHub hands it out (PKCS#1 PEM). */
  privateKey: string;
  users: Map<number, string>;
  orgs: Map<string, GhOrg>;
  addOrg(login: string): GhOrg;
  addUser(id: number, login: string): void;
  /** A user access token, as OAuth sign-in would have issued it. */
  tokenFor(userId: number): string;
  /** Who signs in through the OAuth web flow from now on (browser tests). */
  signInAs(userId: number): void;
  /** A webhook delivery as GitHub sends it, signed with `secret` unless told otherwise. */
  hook(event: string, payload: unknown, opts: { secret: string; deliveryId?: string; signature?: string | null }): { headers: Record<string, string>; payload: string };
  nextId(): number;
}

const DOCS = 'https://docs.github.com/rest';
const notFound: Answer = { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
const badCredentials: Answer = { status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } };

export async function startGithubEmulator(opts: { pageSize?: number } = {}): Promise<GithubEmulator> {
  const maxPerPage = opts.pageSize ?? 100;
  const appId = 1000 + Math.floor(Math.random() * 1000);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const orgs = new Map<string, GhOrg>();
  const users = new Map<number, string>();
  const userTokens = new Map<string, number>();
  const codes = new Map<string, number>();
  let signingIn: number | null = null;
  const installTokens = new Map<string, { org: string; expires: number }>();
  let ids = 5000;
  let apiUrl = '';

  async function appAuthorized(headers: Record<string, string | string[] | undefined>, key: KeyObject): Promise<boolean> {
    const auth = String(headers.authorization ?? '');
    if (!auth.startsWith('Bearer ')) return false;
    try {
      const { payload } = await jwtVerify(auth.slice(7), key, { algorithms: ['RS256'], issuer: String(appId) });
      return typeof payload.iat === 'number' && typeof payload.exp === 'number' && payload.exp - payload.iat <= 600;
    } catch {
      return false;
    }
  }

  function installationOrg(headers: Record<string, string | string[] | undefined>): string | null {
    const auth = String(headers.authorization ?? '');
    const token = auth.replace(/^(Bearer|token) /, '');
    const found = installTokens.get(token);
    return found && found.expires > Date.now() ? found.org : null;
  }

  function paged<T>(path: string, query: URLSearchParams, items: T[], present: (t: T) => unknown): Answer {
    const { page, last, slice } = pageOf(items, query, maxPerPage);
    const link = linkHeader(`${apiUrl}${path}`, query, page, last);
    return { status: 200, body: slice.map(present), headers: link ? { link } : {} };
  }

  const repoJson = (org: GhOrg, r: GhRepo) => ({
    id: r.id, node_id: `R_${r.id}`, name: r.name, full_name: `${org.login}/${r.name}`, private: r.visibility !== 'public',
    owner: { login: org.login, id: org.id, type: 'Organization' }, html_url: `https://github.example/${org.login}/${r.name}`,
    default_branch: r.default_branch, visibility: r.visibility, archived: r.archived,
  });
  const userJson = (id: number) => ({ login: users.get(id) ?? `user${id}`, id, node_id: `U_${id}`, type: 'User', site_admin: false });

  const server = await startServer(async ({ method, path, query, headers, body }) => {
    // "Authorizing OAuth apps", the web application flow: the code comes back to redirect_uri with the state.
    if (method === 'GET' && path === '/login/oauth/authorize') {
      if (signingIn === null) return notFound;
      const code = randomBytes(10).toString('hex');
      codes.set(code, signingIn);
      const to = new URL(query.get('redirect_uri') ?? '');
      to.searchParams.set('code', code);
      if (query.get('state')) to.searchParams.set('state', query.get('state')!);
      return { status: 302, body: '', headers: { location: to.toString() } };
    }
    if (method === 'POST' && path === '/login/oauth/access_token') {
      const form = new URLSearchParams(body);
      const userId = codes.get(form.get('code') ?? '');
      if (userId === undefined) return { status: 200, body: { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' } };
      codes.delete(form.get('code')!);
      const token = `gho_${randomBytes(18).toString('base64url')}`;
      userTokens.set(token, userId);
      return { status: 200, body: { access_token: token, token_type: 'bearer', scope: 'read:org,read:user,user:email' } };
    }
    const p = path.replace(/^\/api\/v3/, '');
    let m: RegExpExecArray | null;
    if (method === 'GET' && (p === '/user' || p === '/user/emails')) {
      const userId = userTokens.get(String(headers.authorization ?? '').replace(/^(Bearer|token) /, ''));
      if (userId === undefined) return badCredentials;
      return { status: 200, body: p === '/user' ? { ...userJson(userId), name: users.get(userId), email: null } : [] };
    }
    if (method === 'GET' && (m = /^\/orgs\/([^/]+)\/installation$/.exec(p))) {
      if (!(await appAuthorized(headers, publicKey))) return { status: 401, body: { message: 'A JSON web token could not be decoded', documentation_url: DOCS, status: '401' } };
      const org = orgs.get(decodeURIComponent(m[1]!).toLowerCase());
      return org ? { status: 200, body: { id: org.installationId, account: { login: org.login, id: org.id }, app_id: appId, target_type: 'Organization' } } : notFound;
    }
    if (method === 'POST' && (m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(p))) {
      if (!(await appAuthorized(headers, publicKey))) return { status: 401, body: { message: 'A JSON web token could not be decoded', documentation_url: DOCS, status: '401' } };
      const org = [...orgs.values()].find((o) => o.installationId === Number(m![1]));
      if (!org) return notFound;
      const token = `ghs_${randomBytes(18).toString('base64url')}`;
      const expires = Date.now() + 3_600_000;
      installTokens.set(token, { org: org.login.toLowerCase(), expires });
      return { status: 201, body: { token, expires_at: new Date(expires).toISOString().replace(/\.\d+Z$/, 'Z'), permissions: { members: 'read', metadata: 'read' }, repository_selection: 'all' } };
    }
    if (method === 'GET' && (m = /^\/user\/memberships\/orgs\/([^/]+)$/.exec(p))) {
      const userId = userTokens.get(String(headers.authorization ?? '').replace(/^(Bearer|token) /, ''));
      if (userId === undefined) return badCredentials;
      const org = orgs.get(decodeURIComponent(m[1]!).toLowerCase());
      const role = org?.members.get(userId);
      if (!org || !role) return notFound;
      return { status: 200, body: { url: `${apiUrl}/orgs/${org.login}/memberships/${users.get(userId)}`, state: 'active', role, organization: { login: org.login, id: org.id }, user: userJson(userId) } };
    }
    if (method === 'GET' && (m = /^\/repos\/([^/]+)\/([^/]+)$/.exec(p))) {
      const orgLogin = installationOrg(headers);
      if (orgLogin === null) return badCredentials;
      const org = orgs.get(decodeURIComponent(m[1]!).toLowerCase());
      const repo = org?.repos.find((r) => r.name.toLowerCase() === decodeURIComponent(m![2]!).toLowerCase());
      return org && repo && orgLogin === org.login.toLowerCase() ? { status: 200, body: repoJson(org, repo) } : notFound;
    }
    if (method === 'GET' && (m = /^\/orgs\/([^/]+)\/(repos|members|teams)(?:\/([^/]+)\/(members|repos))?$/.exec(p))) {
      const orgLogin = installationOrg(headers);
      if (orgLogin === null) return badCredentials;
      const org = orgs.get(decodeURIComponent(m[1]!).toLowerCase());
      if (!org || orgLogin !== org.login.toLowerCase()) return notFound;
      if (m[2] === 'repos' && !m[3]) return paged(p, query, org.repos, (r) => repoJson(org, r));
      if (m[2] === 'members' && !m[3]) {
        const role = query.get('role') ?? 'all';
        const list = [...org.members].filter(([, r]) => role === 'all' || r === role).map(([id]) => id);
        return paged(p, query, list, userJson);
      }
      if (m[2] === 'teams' && !m[3]) return paged(p, query, org.teams, (t) => ({ id: t.id, node_id: `T_${t.id}`, slug: t.slug, name: t.name, description: t.description, privacy: 'closed', permission: 'pull' }));
      const team = org.teams.find((t) => t.slug === decodeURIComponent(m![3]!));
      if (!team) return notFound;
      if (m[4] === 'members') return paged(p, query, [...team.members], userJson);
      return paged(p, query, [...team.repos], ([repoId, perm]) => {
        const repo = org.repos.find((r) => r.id === repoId)!;
        const order: GithubPermission[] = ['pull', 'triage', 'push', 'maintain', 'admin'];
        const at = order.indexOf(perm);
        return { ...repoJson(org, repo), role_name: perm === 'pull' ? 'read' : perm === 'push' ? 'write' : perm, permissions: { pull: at >= 0, triage: at >= 1, push: at >= 2, maintain: at >= 3, admin: at >= 4 } };
      });
    }
    if (method === 'GET' && (m = /^\/teams\/(\d+)\/members$/.exec(p))) {
      const orgLogin = installationOrg(headers);
      if (orgLogin === null) return badCredentials;
      const team = orgs.get(orgLogin)?.teams.find((t) => t.id === Number(m![1]));
      return team ? paged(p, query, [...team.members], userJson) : notFound;
    }
    return notFound;
  }, (fault: Fault): Answer => {
    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    switch (fault) {
      case 'retry_after':
        return { status: 429, body: { message: 'API rate limit exceeded', documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api` }, headers: { 'retry-after': '1' } };
      case 'reset':
        return { status: 403, body: { message: 'API rate limit exceeded for installation ID 1.', documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api` }, headers: { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-reset': reset } };
      case 'secondary':
        return { status: 403, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits` }, headers: { 'retry-after': '1' } };
      case 'error':
        return { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' };
    }
  });
  apiUrl = `${server.origin}/api/v3`;

  return {
    ...server,
    apiUrl,
    appId,
    privateKey: pem,
    users,
    orgs,
    addOrg(login) {
      const org: GhOrg = { id: ++ids, login, installationId: ++ids, repos: [], members: new Map(), teams: [] };
      orgs.set(login.toLowerCase(), org);
      return org;
    },
    addUser(id, login) {
      users.set(id, login);
    },
    tokenFor(userId) {
      const token = `gho_${randomBytes(18).toString('base64url')}`;
      userTokens.set(token, userId);
      return token;
    },
    signInAs(userId) {
      signingIn = userId;
    },
    hook(event, payload, o) {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = {
        'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/abc1234', 'x-github-event': event,
        'x-github-delivery': o.deliveryId ?? randomUUID(), 'x-github-hook-id': '1', 'x-github-hook-installation-target-type': 'integration',
      };
      const signature = o.signature === undefined ? `sha256=${createHmac('sha256', o.secret).update(body).digest('hex')}` : o.signature;
      if (signature !== null) headers['x-hub-signature-256'] = signature;
      return { headers, payload: body };
    },
    nextId: () => ++ids,
  };
}
