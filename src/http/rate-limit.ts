import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import { HttpProblem } from '../problem.js';

const WINDOW_MS = 60_000;

/**
 * Per API key, per signed-in user, and per IP for anonymous calls (tighter on /auth/*). Counters
 * live in memory, or in Redis when REDIS_URL is set so that every instance shares them. Registered
 * between the guard's two hooks: it knows who is asking, and anonymous calls are counted before
 * they are refused.
 */
/** Requests per minute: per key or signed-in user, per IP when anonymous, and per IP on /auth/*. */
type Limits = { perUser: number; perIp: number; auth: number };

export async function registerRateLimit(app: FastifyInstance, limits: Limits, redisUrl: string | null): Promise<void> {
  const redis = redisUrl ? new Redis(redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1 }) : null;
  if (redis) {
    redis.on('error', (error) => app.log.warn({ err: error }, 'redis for rate limits is unavailable'));
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
  }
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: WINDOW_MS,
    max: (_request, key) => (key.startsWith('auth:') ? limits.auth : key.startsWith('ip:') ? limits.perIp : limits.perUser),
    keyGenerator: rateKey,
    allowList: (request) => !isLimited(request.routeOptions.url),
    enableDraftSpec: true,
    // Rate limiting must not take the service down with Redis: without it, requests go through.
    skipOnError: true,
    ...(redis ? { redis, nameSpace: 'scanyard-rl:' } : {}),
    errorResponseBuilder: (_request, context) =>
      new HttpProblem(429, `Too many requests: the limit is ${context.max} per minute. Retry after ${context.after}.`),
  });
}

function rateKey(request: FastifyRequest): string {
  const actor = request.actorOrNull;
  if (actor?.key) return `key:${actor.key.id}`;
  if (actor) return `user:${actor.user.id}`;
  return request.routeOptions.url?.startsWith('/auth/') ? `auth:${request.ip}` : `ip:${request.ip}`;
}

/** Decided on the route that matched, like authentication: no spelling of a URL opts out. */
function isLimited(pattern: string | undefined): boolean {
  return pattern !== undefined && (pattern.startsWith('/api/') || pattern.startsWith('/auth/') || pattern.startsWith('/badge/'));
}
