import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../problem.js';
import { hashKey, isWellFormedKey } from './key-format.js';
import { scopeCovers, type Actor, type KeyScope } from '../domain/actor.js';
import type { SessionStore } from './session-store.js';
import type { KeyActorCache } from './key-cache.js';
import type { SiteAdmins } from './site-admins.js';
import { SESSION_COOKIE } from './session.js';
import { now } from '../db/time.js';
import type { ApiKeyRow, UserRow } from '../db/schema.js';

export type RouteAuth = 'none' | 'optional' | 'required';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'required' is the default for a route whose pattern is under /api/, 'none' elsewhere. */
    auth?: RouteAuth;
    /** The least API key scope this route needs; GET defaults to read, anything else to write. */
    scope?: KeyScope;
    /** Browser sessions only: API keys get 403 (a leaked key must not mint more keys). */
    sessionOnly?: boolean;
    /** The route reads the Authorization header itself (e.g. /metrics and its token): not an API key. */
    ownBearer?: boolean;
    /** State-changing even without a session cookie (dev login): the origin check always applies. */
    sameOriginOnly?: boolean;
    /** A short-lived CI token (src/ci-identity/) may call this route; on any other it gets 403. */
    ciToken?: boolean;
    /**
     * The body proves itself by a signature (a SAML Response the IdP's page posts, cross-site by
     * design): the origin check does not apply. The handler must neither read nor write the session:
     * the SAML ACS signs no one in, it sends the browser on to a same-origin completion.
     */
    signedPost?: boolean;
  }
  interface FastifyRequest {
    /**
     * Who is asking. Reading it where nobody is signed in throws a 401, so a handler can never act
     * on behalf of nobody, whatever its route declares.
     */
    readonly actor: Actor;
    /** The same, or null when anonymous: for hooks that also see anonymous requests (rate limits). */
    actorOrNull: Actor | null;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Writing last_used_at on every request would turn each read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * What a route needs, from the route that matched (its config, else its URL pattern), never from
 * the request's URL: the router matches decoded and absolute-form spellings that a string test on
 * request.url would miss.
 */
function routeAuth(request: FastifyRequest): RouteAuth {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return 'none'; // no route matched: the 404 handler answers
  return request.routeOptions.config.auth ?? (isApiPattern(pattern) ? 'required' : 'none');
}

function isApiPattern(pattern: string): boolean {
  return pattern === '/api' || pattern.startsWith('/api/');
}

/** What the guard asks of the API key store (apikeys/store.ts answers). */
interface KeyLookup {
  findActive(keyHash: string): Promise<{ key: ApiKeyRow; user: UserRow } | undefined>;
  touch(id: string, at: string): Promise<void>;
}

export interface GuardDeps {
  sessions: SessionStore;
  apiKeys: KeyLookup;
  /** Keys this instance looked up less than a second ago (key-cache.ts). */
  keyActors: KeyActorCache;
  admins: SiteAdmins;
  /** The origin of SERVICE_BASE_URL: the only one state-changing cookie requests may come from. */
  baseUrl: string;
  /** Once any sign-in provider is configured, local users (the dev user) can no longer act. */
  localUsersDisabled: boolean;
  /** Short-lived CI tokens (syc_…), looked up in the database on every request: they live 15 minutes. */
  ciTokens: { prefix: string; actorOf(token: string): Promise<Actor | undefined> };
}

/**
 * Two hooks, so that rate limiting (a route-level onRequest hook, which runs after the app-level
 * ones) sits between them: the first works out who is asking (an invalid key is refused here), the
 * second, before validation, refuses what that actor may not do.
 */
export function registerGuard(app: FastifyInstance, deps: GuardDeps): { enforce(): void } {
  const baseOrigin = new URL(deps.baseUrl).origin;
  app.decorateRequest('actorOrNull', null);
  app.decorateRequest('actor', {
    getter(this: FastifyRequest) {
      if (!this.actorOrNull) throw unauthorized();
      return this.actorOrNull;
    },
  });
  app.addHook('onRequest', async (request) => {
    const bearer = request.routeOptions.config.ownBearer ? null : bearerToken(request);
    if (bearer === null) checkSameOrigin(request, baseOrigin);
    request.actorOrNull = bearer === null ? await sessionActor(request, deps)
      : bearer.startsWith(deps.ciTokens.prefix) ? await ciActor(bearer, deps) : await keyActor(bearer, deps);
  });
  return {
    enforce: () => app.addHook('preValidation', async (request) => {
      const actor = request.actorOrNull;
      if (routeAuth(request) === 'required' && !actor) throw unauthorized();
      if (actor?.ci && !request.routeOptions.config.ciToken) {
        throw forbidden('A CI token may only upload scan results to its repositories and read their uploads and gate.');
      }
      if (actor?.key) checkKeyMayCall(request, actor.key.scope);
    }),
  };
}

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // A malformed Authorization header is a failed key, not an anonymous request.
  return match?.[1] ?? '';
}

/** A local user (provider_id null) is the dev user: it stops existing for the guard once a provider signs people in. */
function mayAct(user: UserRow, deps: GuardDeps): boolean {
  return !(deps.localUsersDisabled && user.provider_id === null);
}

async function keyActor(token: string, deps: GuardDeps): Promise<Actor> {
  const keyHash = hashKey(token);
  const actor = await deps.keyActors.actorOf(keyHash, () => lookUpKey(token, keyHash, deps));
  // One answer for malformed, unknown, expired and revoked keys: nothing to learn from probing.
  if (!actor) throw unauthorized('The API key is not valid.');
  return actor;
}

async function ciActor(token: string, deps: GuardDeps): Promise<Actor> {
  const actor = await deps.ciTokens.actorOf(token);
  if (!actor) throw unauthorized('The CI token is not valid (they live 15 minutes: exchange the job token again).');
  return actor;
}

async function lookUpKey(token: string, keyHash: string, deps: GuardDeps): Promise<{ actor: Actor; expiresAt: string | null } | undefined> {
  const found = isWellFormedKey(token) ? await deps.apiKeys.findActive(keyHash) : undefined;
  if (!found || !mayAct(found.user, deps)) return undefined;
  const at = now();
  if (!found.key.last_used_at || Date.parse(at) - Date.parse(found.key.last_used_at) > TOUCH_INTERVAL_MS) {
    await deps.apiKeys.touch(found.key.id, at);
  }
  const actor: Actor = {
    user: found.user,
    isAdmin: await deps.admins.isAdmin(found.user),
    via: 'api_key',
    sessionId: null,
    key: {
      id: found.key.id,
      scope: found.key.scope as KeyScope,
      orgIds: found.key.org_ids ? (JSON.parse(found.key.org_ids) as string[]) : null,
    },
  };
  return { actor, expiresAt: found.key.expires_at };
}

async function sessionActor(request: FastifyRequest, deps: GuardDeps): Promise<Actor | null> {
  const sessionId = request.session.get('sid') as string | undefined;
  if (!sessionId) return null;
  const user = await deps.sessions.userOf(sessionId);
  if (!user || !mayAct(user, deps)) return null;
  return { user, isAdmin: await deps.admins.isAdmin(user), via: 'session', sessionId, key: null };
}

function checkKeyMayCall(request: FastifyRequest, scope: KeyScope): void {
  const config = request.routeOptions.config;
  if (config.sessionOnly) throw forbidden('API keys cannot be used here; sign in with a browser session.');
  const needed = config.scope ?? (SAFE_METHODS.has(request.method) ? 'read' : 'write');
  if (!scopeCovers(scope, needed)) {
    throw forbidden(`This API key has the "${scope}" scope; this request needs "${needed}".`);
  }
}

/**
 * Cookies ride along on cross-site requests, so a state-changing request that carries our cookie
 * (or signs in, like dev login) must show it comes from SERVICE_BASE_URL's origin: by Origin, or,
 * without one, by Sec-Fetch-Site: same-origin. Never by Host or X-Forwarded-Host: a client names
 * those itself, and a rebinding DNS name makes a foreign page "same-host".
 */
function checkSameOrigin(request: FastifyRequest, baseOrigin: string): void {
  if (SAFE_METHODS.has(request.method) || request.routeOptions.config.signedPost) return;
  const carriesCookie = request.cookies?.[SESSION_COOKIE] !== undefined;
  if (!carriesCookie && !request.routeOptions.config.sameOriginOnly) return;
  const origin = request.headers.origin;
  const sameOrigin = origin !== undefined ? origin === baseOrigin : request.headers['sec-fetch-site'] === 'same-origin';
  if (!sameOrigin) throw forbidden(`Cross-site requests are not allowed: a request that changes something must come from ${baseOrigin}.`);
}
