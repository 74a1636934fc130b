/**
 * One local HTTP server that plays any number of forges, each under /<type>-<n>, speaking each
 * forge's documented OAuth 2.0 authorization-code flow and user API. A test drives who signs in and
 * how the forge misbehaves; every request is recorded so tests can check what the service sent.
 *
 * Stricter than the real forges on purpose: it always requires state and PKCE S256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ForgeType, ProviderConfig } from '../../src/providers-config.js';

export interface EmulatedEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

export interface EmulatedUser {
  /** Numeric for GitHub/GitLab/Gitea; for Bitbucket a "{uuid}" string. */
  id: number | string;
  login: string;
  name: string | null;
  /** The email on the profile (GitHub: the public one); Bitbucket profiles never carry one. */
  email: string | null;
  avatarUrl: string | null;
  /** The account's addresses (GitHub /user/emails, Bitbucket /2.0/user/emails); defaults from email. */
  emails?: EmulatedEmail[];
}

/** error: the forge's documented token error; timeout: never answers; 500: HTML error page; malformed: 200 non-JSON. */
export type TokenFailure = 'error' | 'timeout' | '500' | 'malformed';
export type Endpoint = 'authorize' | 'token' | 'user' | 'emails' | 'unknown';

export interface RecordedRequest {
  endpoint: Endpoint;
  method: string;
  /** Full request target, query included. */
  url: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
}

export type EmulatedProviderConfig = Pick<ProviderConfig, 'type' | 'name' | 'client_id' | 'client_secret' | 'url' | 'api_url'>;

export interface AddForgeOptions {
  type: ForgeType;
  clientId?: string;
  clientSecret?: string;
  /** The registered callback; when unset any redirect_uri is accepted. */
  redirectUri?: string;
}

export interface EmulatedForge {
  readonly type: ForgeType;
  readonly url: string;
  readonly apiUrl: string;
  /** Ready to spread into a SERVICE_PROVIDERS entry (add an id). */
  readonly config: EmulatedProviderConfig;
  readonly requests: RecordedRequest[];
  /** Who signs in at the next authorize requests (sticky until changed). */
  setNextUser(user: EmulatedUser): void;
  setDeny(deny: boolean): void;
  /** Sticky until set back to null. */
  setFailToken(mode: TokenFailure | null): void;
}

export interface ForgeEmulator {
  readonly origin: string;
  addForge(opts: AddForgeOptions): EmulatedForge;
  close(): Promise<void>;
}

// ---- per-forge dialects --------------------------------------------------------------------

type TokenFault = 'unsupported_grant' | 'bad_client' | 'bad_code' | 'bad_redirect' | 'bad_verifier';
type Answer = [status: number, body: unknown];

interface Dialect {
  label: string;
  authorizePath: string;
  tokenPath: string;
  /** Path of the API root under the forge's base path. */
  apiPath: string;
  userPath: string;
  emailsPath?: string;
  redirectStatus: number;
  /** Where the token endpoint takes client credentials. */
  clientAuth: 'body' | 'basic' | 'either';
  acceptsJsonBody: boolean;
  /** GitHub: response_type, grant_type and redirect_uri may be left out. */
  lenient: boolean;
  /** Scopes granted when the authorize request names none (Bitbucket: the consumer's). */
  defaultGrant: string[];
  denyDescription: string;
  tokenOk(token: string, scopes: string[]): Record<string, unknown>;
  tokenError(fault: TokenFault): Answer;
  unauthorized: unknown;
  /** Any one of these scopes opens the endpoint; otherwise the answer given. */
  userScopes?: { anyOf: string[]; otherwise: Answer };
  emailScopes?: { anyOf: string[]; otherwise: Answer };
  user(u: EmulatedUser, web: string): unknown;
  emails?(u: EmulatedUser): unknown;
}

const GH_DOCS = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';

const github: Dialect = {
  label: 'GitHub',
  authorizePath: '/login/oauth/authorize',
  tokenPath: '/login/oauth/access_token',
  apiPath: '/api/v3',
  userPath: '/user',
  emailsPath: '/user/emails',
  redirectStatus: 302,
  clientAuth: 'body',
  acceptsJsonBody: true,
  lenient: true,
  defaultGrant: [],
  denyDescription: 'The user has denied your application access.',
  tokenOk: (token, scopes) => ({ access_token: token, token_type: 'bearer', scope: scopes.join(',') }),
  tokenError: (fault) => {
    const errors: Record<TokenFault, [string, string]> = {
      unsupported_grant: ['unsupported_grant_type', 'The grant type is not supported.'],
      bad_client: ['incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.'],
      bad_code: ['bad_verification_code', 'The code passed is incorrect or expired.'],
      bad_redirect: ['redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.'],
      bad_verifier: ['bad_verification_code', 'The code passed is incorrect or expired.'],
    };
    const [error, description] = errors[fault];
    return [200, { error, error_description: description, error_uri: `${GH_DOCS}/#${error.replaceAll('_', '-')}` }];
  },
  unauthorized: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' },
  emailScopes: {
    anyOf: ['user', 'user:email'],
    otherwise: [404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/users/emails', status: '404' }],
  },
  user: (u, web) => ({
    login: u.login,
    id: u.id,
    node_id: `U_${u.id}`,
    avatar_url: u.avatarUrl,
    html_url: `${web}/${u.login}`,
    type: 'User',
    site_admin: false,
    name: u.name,
    company: null,
    email: u.email,
  }),
  emails: (u) => emailsOf(u).map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
};

const DOORKEEPER_INVALID_GRANT =
  'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.';

const gitlab: Dialect = {
  label: 'GitLab',
  authorizePath: '/oauth/authorize',
  tokenPath: '/oauth/token',
  apiPath: '/api/v4',
  userPath: '/user',
  redirectStatus: 302,
  clientAuth: 'either',
  acceptsJsonBody: true,
  lenient: false,
  defaultGrant: [],
  denyDescription: 'The resource owner or authorization server denied the request.',
  tokenOk: (token, scopes) => ({
    access_token: token,
    token_type: 'Bearer',
    expires_in: 7200,
    refresh_token: randomToken(),
    scope: scopes.join(' '),
    created_at: Math.floor(Date.now() / 1000),
  }),
  tokenError: (fault) => {
    if (fault === 'bad_client') {
      return [401, { error: 'invalid_client', error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.' }];
    }
    if (fault === 'unsupported_grant') {
      return [400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' }];
    }
    return [400, { error: 'invalid_grant', error_description: DOORKEEPER_INVALID_GRANT }];
  },
  unauthorized: { message: '401 Unauthorized' },
  userScopes: {
    anyOf: ['read_user', 'api', 'read_api'],
    otherwise: [403, { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'read_user api read_api' }],
  },
  user: (u, web) => ({
    id: u.id,
    username: u.login,
    name: u.name ?? '',
    state: 'active',
    avatar_url: u.avatarUrl,
    web_url: `${web}/${u.login}`,
    email: u.email,
    public_email: '',
  }),
};

function giteaLike(label: string): Dialect {
  return {
    label,
    authorizePath: '/login/oauth/authorize',
    tokenPath: '/login/oauth/access_token',
    apiPath: '/api/v1',
    userPath: '/user',
    redirectStatus: 303,
    clientAuth: 'either',
    acceptsJsonBody: true,
    lenient: false,
    defaultGrant: [],
    denyDescription: 'the request is denied',
    tokenOk: (token) => ({ access_token: token, token_type: 'bearer', expires_in: 3600, refresh_token: randomToken() }),
    // Codes and descriptions as routers/web/auth/oauth2_provider.go answers them.
    tokenError: (fault) => {
      const errors: Record<TokenFault, [string, string]> = {
        unsupported_grant: ['unsupported_grant_type', 'Only refresh_token or authorization_code grant type is supported'],
        bad_client: ['unauthorized_client', 'invalid client secret'],
        bad_code: ['unauthorized_client', 'client is not authorized'],
        bad_redirect: ['invalid_grant', 'redirect_uri differs from the original authorization request'],
        bad_verifier: ['unauthorized_client', 'failed PKCE code challenge'],
      };
      const [error, description] = errors[fault];
      return [400, { error, error_description: description }];
    },
    unauthorized: { message: 'token is required', url: 'https://gitea.com/api/swagger' },
    user: (u, web) => ({
      id: u.id,
      login: u.login,
      login_name: '',
      full_name: u.name ?? '',
      email: u.email ?? '',
      avatar_url: u.avatarUrl ?? '',
      html_url: `${web}/${u.login}`,
      is_admin: false,
      active: true,
      username: u.login,
    }),
  };
}

const bitbucket: Dialect = {
  label: 'Bitbucket',
  authorizePath: '/site/oauth2/authorize',
  tokenPath: '/site/oauth2/access_token',
  apiPath: '/api',
  userPath: '/2.0/user',
  emailsPath: '/2.0/user/emails',
  redirectStatus: 302,
  clientAuth: 'basic',
  acceptsJsonBody: false,
  lenient: false,
  defaultGrant: ['account', 'email'],
  denyDescription: 'The user denied the request.',
  tokenOk: (token, scopes) => ({
    access_token: token,
    scopes: scopes.join(' '),
    expires_in: 7200,
    refresh_token: randomToken(),
    token_type: 'bearer',
    state: 'authorization_code',
  }),
  tokenError: (fault) => {
    if (fault === 'bad_client') return [401, { error: 'invalid_client', error_description: 'Invalid OAuth client credentials' }];
    if (fault === 'unsupported_grant') return [400, { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' }];
    return [400, { error: 'invalid_grant', error_description: 'The specified code is not valid.' }];
  },
  unauthorized: { type: 'error', error: { message: 'Access token expired or invalid.' } },
  emailScopes: { anyOf: ['email'], otherwise: [403, { type: 'error', error: { message: 'Your credentials lack one or more required privilege scopes.', detail: { granted: ['account'], required: ['email'] } } }] },
  user: (u, web) => ({
    type: 'user',
    uuid: u.id,
    account_id: `557058:${u.login}`,
    username: u.login,
    nickname: u.login,
    display_name: u.name ?? u.login,
    links: { avatar: { href: u.avatarUrl }, html: { href: `${web}/${u.login}/` } },
  }),
  emails: (u) => {
    const values = emailsOf(u).map((e) => ({ type: 'email', email: e.email, is_primary: e.primary, is_confirmed: e.verified }));
    return { pagelen: 10, values, page: 1, size: values.length };
  },
};

const DIALECTS: Record<ForgeType, Dialect> = { github, gitlab, gitea: giteaLike('Gitea'), forgejo: giteaLike('Forgejo'), bitbucket };

function emailsOf(u: EmulatedUser): EmulatedEmail[] {
  return u.emails ?? (u.email === null ? [] : [{ email: u.email, primary: true, verified: true }]);
}

// ---- state -----------------------------------------------------------------------------------

interface Grant {
  user: EmulatedUser;
  /** As sent to authorize; null when left out (GitHub then uses the registered one). */
  redirectUri: string | null;
  challenge: string;
  scopes: string[];
  used: boolean;
}

interface ForgeState extends EmulatedForge {
  dialect: Dialect;
  base: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string | null;
  user: EmulatedUser;
  deny: boolean;
  failToken: TokenFailure | null;
  codes: Map<string, Grant>;
  tokens: Map<string, Grant>;
}

const DEFAULT_USER: EmulatedUser = {
  id: 1001,
  login: 'ada',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  avatarUrl: 'https://avatars.example.com/ada.png',
};

export async function startForgeEmulator(opts: { host?: string } = {}): Promise<ForgeEmulator> {
  const host = opts.host ?? '127.0.0.1';
  const forges: ForgeState[] = [];
  const server = createServer((req, res) => {
    handle(forges, req, res).catch((err: unknown) => sendText(res, 500, `emulator failure: ${String(err)}`));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    addForge: (o) => {
      const forge = newForge(origin, forges.length + 1, o);
      forges.push(forge);
      return forge;
    },
    close: async () => {
      server.closeAllConnections(); // also ends the requests held open by setFailToken('timeout')
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function newForge(origin: string, n: number, o: AddForgeOptions): ForgeState {
  const dialect = DIALECTS[o.type];
  const base = `/${o.type}-${n}`;
  const url = origin + base;
  const apiUrl = url + dialect.apiPath;
  const clientId = o.clientId ?? `client-${o.type}-${n}`;
  const clientSecret = o.clientSecret ?? `secret-${randomToken()}`;
  const forge: ForgeState = {
    type: o.type,
    url,
    apiUrl,
    config: { type: o.type, name: dialect.label, client_id: clientId, client_secret: clientSecret, url, api_url: apiUrl },
    requests: [],
    dialect,
    base,
    clientId,
    clientSecret,
    redirectUri: o.redirectUri ?? null,
    user: o.type === 'bitbucket' ? { ...DEFAULT_USER, id: '{c0ffee00-0000-4000-8000-000000001001}' } : DEFAULT_USER,
    deny: false,
    failToken: null,
    codes: new Map(),
    tokens: new Map(),
    setNextUser: (user) => void (forge.user = user),
    setDeny: (deny) => void (forge.deny = deny),
    setFailToken: (mode) => void (forge.failToken = mode),
  };
  return forge;
}

// ---- routing ---------------------------------------------------------------------------------

async function handle(forges: ForgeState[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const target = new URL(req.url ?? '/', 'http://emulator');
  const forge = forges.find((f) => target.pathname.startsWith(`${f.base}/`));
  if (!forge) return sendText(res, 404, 'no such forge');
  const path = target.pathname.slice(forge.base.length);
  const endpoint = endpointOf(forge.dialect, req.method ?? 'GET', path);
  const query = Object.fromEntries(target.searchParams);
  forge.requests.push({ endpoint, method: req.method ?? 'GET', url: req.url ?? '', query, headers: req.headers, body });
  switch (endpoint) {
    case 'authorize':
      return authorize(forge, target.searchParams, res);
    case 'token':
      return token(forge, req, body, target.searchParams, res);
    case 'user':
    case 'emails':
      return userApi(forge, endpoint, req, res);
    default:
      return sendJson(res, 404, { message: 'Not Found' });
  }
}

function endpointOf(d: Dialect, method: string, path: string): Endpoint {
  if (method === 'GET' && path === d.authorizePath) return 'authorize';
  if (method === 'POST' && path === d.tokenPath) return 'token';
  if (method === 'GET' && path === d.apiPath + d.userPath) return 'user';
  if (method === 'GET' && d.emailsPath && path === d.apiPath + d.emailsPath) return 'emails';
  return 'unknown';
}

// ---- authorize: the user is signed in and consents at once --------------------------------------

function authorize(f: ForgeState, q: URLSearchParams, res: ServerResponse): void {
  const d = f.dialect;
  // An unknown client or callback gets an error page, never a redirect (RFC 6749 4.1.2.1).
  if (q.get('client_id') !== f.clientId) return sendText(res, 404, 'unknown client_id');
  const given = q.get('redirect_uri');
  const redirect = given ?? (d.lenient ? f.redirectUri : null);
  if (redirect === null) return sendText(res, 400, 'redirect_uri is required');
  if (f.redirectUri !== null && redirect !== f.redirectUri) return sendText(res, 400, 'redirect_uri is not registered for this application');
  const state = q.get('state');
  if (!state) return sendText(res, 400, 'state is required (emulator policy)');
  const back = (params: Record<string, string>): void => redirectTo(res, d.redirectStatus, redirect, { ...params, state });
  const responseType = q.get('response_type');
  if (responseType !== 'code' && !(d.lenient && responseType === null)) {
    return back({ error: 'unsupported_response_type', error_description: 'Only code response type is supported.' });
  }
  const challenge = q.get('code_challenge') ?? '';
  if (q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return back({ error: 'invalid_request', error_description: 'code_challenge with code_challenge_method=S256 is required' });
  }
  if (f.deny) return back({ error: 'access_denied', error_description: d.denyDescription });
  const requested = (q.get('scope') ?? '').split(/[\s,]+/).filter(Boolean);
  const scopes = requested.length > 0 ? requested : d.defaultGrant;
  const code = randomToken();
  f.codes.set(code, { user: f.user, redirectUri: given, challenge, scopes, used: false });
  back({ code });
}

// ---- token -----------------------------------------------------------------------------------

function token(f: ForgeState, req: IncomingMessage, raw: string, query: URLSearchParams, res: ServerResponse): void {
  const d = f.dialect;
  // GitHub also reads the parameters from the query string.
  const params = d.lenient ? { ...Object.fromEntries(query), ...formParams(raw, req, d) } : formParams(raw, req, d);
  switch (f.failToken) {
    case 'timeout':
      return; // hold the request open until the client gives up or the emulator closes
    case '500':
      return sendText(res, 500, '<html><body><h1>500 Internal Server Error</h1></body></html>', 'text/html');
    case 'malformed':
      return sendText(res, 200, '<html><body>Sign in</body></html>', 'text/html');
    case 'error':
      return tokenAnswer(res, req, d, d.tokenError('bad_code'));
  }
  const outcome = checkTokenRequest(f, params, clientCredentials(d, params, req.headers.authorization));
  if (typeof outcome === 'string') return tokenAnswer(res, req, d, d.tokenError(outcome));
  outcome.used = true;
  const access = (d === github ? 'gho_' : '') + randomToken();
  f.tokens.set(access, outcome);
  tokenAnswer(res, req, d, [200, d.tokenOk(access, outcome.scopes)]);
}

function checkTokenRequest(f: ForgeState, p: Record<string, string>, client: { id?: string; secret?: string }): TokenFault | Grant {
  const d = f.dialect;
  if (p.grant_type !== 'authorization_code' && !(d.lenient && p.grant_type === undefined)) return 'unsupported_grant';
  if (client.id !== f.clientId || client.secret !== f.clientSecret) return 'bad_client';
  const grant = f.codes.get(p.code ?? '');
  if (!grant || grant.used) return 'bad_code'; // codes are single use
  const redirectOk = grant.redirectUri === null || p.redirect_uri === grant.redirectUri || (d.lenient && p.redirect_uri === undefined);
  if (!redirectOk) return 'bad_redirect';
  if (!verifierMatches(p.code_verifier, grant.challenge)) return 'bad_verifier';
  return grant;
}

function verifierMatches(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return createHash('sha256').update(verifier, 'ascii').digest('base64url') === challenge;
}

function formParams(raw: string, req: IncomingMessage, d: Dialect): Record<string, string> {
  const type = req.headers['content-type'] ?? '';
  if (d.acceptsJsonBody && type.startsWith('application/json')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === 'object' && parsed !== null ? Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])) : {};
    } catch {
      return {}; // answered like a request with no parameters
    }
  }
  return type.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw)) : {};
}

function clientCredentials(d: Dialect, p: Record<string, string>, authorization: string | undefined): { id?: string; secret?: string } {
  const basic = parseBasic(authorization);
  if (d.clientAuth === 'basic') return basic ?? {};
  if (d.clientAuth === 'either' && basic && p.client_secret === undefined) return basic;
  return { id: p.client_id, secret: p.client_secret };
}

function parseBasic(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/** GitHub answers form-encoded unless asked for JSON; everyone else always answers JSON. */
function tokenAnswer(res: ServerResponse, req: IncomingMessage, d: Dialect, [status, body]: Answer): void {
  const wantsJson = (req.headers.accept ?? '').includes('application/json');
  if (d === github && !wantsJson) {
    const form = new URLSearchParams(Object.entries(body as Record<string, string>)).toString();
    return sendText(res, status, form, 'application/x-www-form-urlencoded; charset=utf-8');
  }
  sendJson(res, status, body);
}

// ---- user API --------------------------------------------------------------------------------

function userApi(f: ForgeState, endpoint: 'user' | 'emails', req: IncomingMessage, res: ServerResponse): void {
  const d = f.dialect;
  if (d === github && !req.headers['user-agent']) {
    return sendText(res, 403, 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header');
  }
  const match = /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const grant = match?.[1] ? f.tokens.get(match[1]) : undefined;
  if (!grant) return sendJson(res, 401, d.unauthorized);
  const rule = endpoint === 'user' ? d.userScopes : d.emailScopes;
  if (rule && !rule.anyOf.some((s) => grant.scopes.includes(s))) return sendJson(res, ...rule.otherwise);
  if (endpoint === 'user') return sendJson(res, 200, d.user(grant.user, f.url));
  return d.emails ? sendJson(res, 200, d.emails(grant.user)) : sendJson(res, 404, { message: 'Not Found' });
}

// ---- plumbing --------------------------------------------------------------------------------

function randomToken(): string {
  return randomBytes(20).toString('hex');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function redirectTo(res: ServerResponse, status: number, target: string, params: Record<string, string>): void {
  const url = new URL(target);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  res.writeHead(status, { Location: url.toString(), 'Content-Length': '0' }).end();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body), 'application/json; charset=utf-8');
}

function sendText(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) }).end(text);
}
