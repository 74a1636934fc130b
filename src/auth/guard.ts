import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../http/problem.js';
import { hashKey, isWellFormedKey } from './key-format.js';
import { isSiteAdmin, type Actor, type KeyScope } from './actor.js';
import type { ApiKeyStore } from '../apikeys/store.js';
import type { SessionStore } from './session-store.js';
import { now } from '../db/time.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'required' is the default under /api/, 'none' elsewhere. */
    auth?: 'none' | 'optional' | 'required';
    /** The least API key scope this route needs; GET defaults to read, anything else to write. */
    scope?: KeyScope;
    /** Browser sessions only: API keys get 403 (a leaked key must not mint more keys). */
    sessionOnly?: boolean;
    /** The route reads the Authorization header itself (e.g. /metrics and its token): not an API key. */
    ownBearer?: boolean;
  }
  interface FastifyRequest {
    actor: Actor | null;
  }
}

const SCOPE_RANK: Record<KeyScope, number> = { read: 0, upload: 1, write: 2 };
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Writing last_used_at on every request would turn each read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

export interface GuardDeps {
  sessions: SessionStore;
  apiKeys: ApiKeyStore;
  admins: readonly string[];
  baseUrl: string;
}

/**
 * Two hooks, so that rate limiting (a route-level onRequest hook, which runs after the app-level
 * ones) sits between them: the first works out who is asking (an invalid key is refused here), the
 * second, before validation, refuses what that actor may not do.
 */
export function registerGuard(app: FastifyInstance, deps: GuardDeps): { enforce(): void } {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request) => {
    const bearer = request.routeOptions.config.ownBearer ? null : bearerToken(request);
    if (bearer === null) checkSameOrigin(request, deps.baseUrl);
    request.actor = bearer !== null ? await keyActor(bearer, deps) : await sessionActor(request, deps);
  });
  return {
    enforce: () => app.addHook('preValidation', async (request) => {
      if (!request.routeOptions.url) return; // unknown route: the 404 handler answers
      const auth = request.routeOptions.config.auth ?? (request.url.startsWith('/api/') ? 'required' : 'none');
      if (auth === 'required' && !request.actor) throw unauthorized();
      if (request.actor?.key) checkKeyMayCall(request, request.actor.key.scope);
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

async function keyActor(token: string, deps: GuardDeps): Promise<Actor> {
  // One answer for malformed, unknown, expired and revoked keys: nothing to learn from probing.
  const found = isWellFormedKey(token) ? await deps.apiKeys.findActive(hashKey(token)) : undefined;
  if (!found) throw unauthorized('The API key is not valid.');
  const at = now();
  if (!found.key.last_used_at || Date.parse(at) - Date.parse(found.key.last_used_at) > TOUCH_INTERVAL_MS) {
    await deps.apiKeys.touch(found.key.id, at);
  }
  return {
    user: found.user,
    isAdmin: isSiteAdmin(found.user, deps.admins),
    via: 'api_key',
    sessionId: null,
    key: {
      id: found.key.id,
      scope: found.key.scope as KeyScope,
      orgIds: found.key.org_ids ? (JSON.parse(found.key.org_ids) as string[]) : null,
    },
  };
}

async function sessionActor(request: FastifyRequest, deps: GuardDeps): Promise<Actor | null> {
  const sessionId = request.session.get('sid') as string | undefined;
  if (!sessionId) return null;
  const user = await deps.sessions.userOf(sessionId);
  if (!user) return null;
  return { user, isAdmin: isSiteAdmin(user, deps.admins), via: 'session', sessionId, key: null };
}

function checkKeyMayCall(request: FastifyRequest, scope: KeyScope): void {
  const config = request.routeOptions.config;
  if (config.sessionOnly) throw forbidden('API keys cannot be used here; sign in with a browser session.');
  const needed = config.scope ?? (SAFE_METHODS.has(request.method) ? 'read' : 'write');
  if (SCOPE_RANK[scope] < SCOPE_RANK[needed]) {
    throw forbidden(`This API key has the "${scope}" scope; this request needs "${needed}".`);
  }
}

/**
 * Cookies ride along on cross-site requests, so a state-changing request without a bearer key must
 * come from our own origin. Browsers always send Origin or Sec-Fetch-Site on such requests; a
 * client that sends neither is not a browser and cannot be tricked into sending our cookie.
 */
function checkSameOrigin(request: FastifyRequest, baseUrl: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw forbidden('Cross-site requests are not allowed.');
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const allowed = [new URL(baseUrl).origin, `${request.protocol}://${request.host}`];
  if (!allowed.includes(origin)) throw forbidden('Cross-site requests are not allowed.');
}
