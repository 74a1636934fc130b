/**
 * Class 1: authentication, key scopes and rate limits are decided on the route that matched, and
 * only the canonical spelling of a path is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { get, listen, rawRequest } from '../support/raw-http.js';
import { registeredRoutes } from '../../src/http/openapi.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { createTestDatabase } from '../support/db.js';
import { TEST_SECRET } from '../support/app.js';

/** Spellings of /api/v1/users?q=v (which lists people) that the router would also match, or nearly. */
const SPELLINGS = [
  '/%61pi/v1/users?q=v',
  '/api/v1/%75sers?q=v',
  '/api%2Fv1/users?q=v',
  '/api%2fv1%2fusers?q=v',
  '//api/v1/users?q=v',
  '/api//v1/users?q=v',
  '/api/v1/./users?q=v',
  '/api/v1/x/../users?q=v',
  '/x/../api/v1/users?q=v',
  '/api/v1/%2e%2e/v1/users?q=v',
  '/api/v1/users%2F?q=v',
  '/api\\v1\\users?q=v',
];

describe('decisions on the matched route', () => {
  let t: TestApp;
  let port: number;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    ({ cookie } = await t.user('someone'));
    await t.user('victim');
    port = await listen(t.app);
  });
  afterAll(() => t.close());

  // inject resolves dot segments (also %2e ones) and backslashes itself (it parses the URL), so only these reach the server verbatim.
  const VERBATIM_IN_INJECT = SPELLINGS.filter((target) => !/\/\.|\\|%2e/i.test(target));

  it.each(VERBATIM_IN_INJECT)('refuses %s with a 400 problem, signed in or not, through inject', async (target) => {
    for (const headers of [{}, { cookie }]) {
      const res = await t.request({ url: target, headers: { accept: 'application/json', ...headers } });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toContain('not in canonical form');
    }
  });

  it.each(SPELLINGS)('refuses %s over a socket, anonymous or signed in, whatever the Accept', async (target) => {
    const variants: Record<string, string>[] = [{ accept: 'text/html,application/json' }, { cookie }];
    for (const headers of variants) {
      const res = await rawRequest(port, get(target, headers));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.parse(res.body).detail).toContain('not in canonical form');
    }
  });

  it('refuses an absolute-form request line (any host) and an asterisk-form one', async () => {
    for (const target of ['http://localhost:8080/api/v1/users?q=v', 'http://evil.example/api/v1/users?q=v', 'HTTP://LOCALHOST:8080/api/v1/users?q=v', '*']) {
      const res = await rawRequest(port, get(target, { cookie }));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.parse(res.body).detail).toContain('origin-form');
    }
  });

  it('serves the canonical spelling as before, and only to someone signed in', async () => {
    expect((await rawRequest(port, get('/api/v1/users?q='))).status).toBe(401);
    const signedIn = await rawRequest(port, get('/api/v1/users?q=v', { cookie }));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toContain('victim');
    // Percent-encoding that a canonical URI keeps (a space in a query, a reserved character in a path) still works.
    const encodedQuery = await rawRequest(port, get('/api/v1/users?q=vic%74im', { cookie }));
    expect(encodedQuery.status).toBe(200);
    expect(encodedQuery.body).toContain('victim');
    expect((await rawRequest(port, get('/api/v1/orgs/no%20such', { cookie }))).status).toBe(404);
  });

  it('asks for sign-in on every route under /api/, including HEAD and ones that declare nothing', async () => {
    const routes = registeredRoutes(t.app).filter((r) => r.url.startsWith('/api/'));
    expect(routes.length).toBeGreaterThan(20);
    for (const route of [...routes, ...routes.filter((r) => r.method === 'GET').map((r) => ({ ...r, method: 'HEAD' }))]) {
      const url = route.url.replace(/:[a-z_]+/g, '0190f0a0-0000-7000-8000-000000000000');
      const res = await t.request({ method: route.method as 'GET', url, payload: route.method === 'GET' || route.method === 'HEAD' ? undefined : {} });
      expect({ route: `${route.method} ${route.url}`, status: res.statusCode }).toEqual({ route: `${route.method} ${route.url}`, status: 401 });
    }
  });

  it('applies a key scope on the matched route: a read key cannot write, whatever the URL looks like', async () => {
    const key = await t.apiKey(cookie, { scopes: ['read'] });
    const res = await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { authorization: `Bearer ${key}` }, payload: { name: 'by-read-key' } });
    expect(res.statusCode).toBe(403);
    const raw = await rawRequest(port, `POST http://localhost:8080/api/v1/orgs HTTP/1.1\r\nhost: localhost:8080\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`);
    expect(raw.status).toBe(400);
  });
});

describe('a handler can never run without an actor', () => {
  it('answers 401, not 500, when a route under /api/ says it needs no sign-in but reads the actor', async () => {
    const database = await createTestDatabase('sqlite');
    const config = loadConfig({ DATABASE_URL: database.url, SERVICE_SESSION_SECRET: TEST_SECRET, SERVICE_BASE_URL: 'http://localhost:8080' });
    const db = openDatabase(config.database);
    await db.migrate();
    const app = await buildApp({ config, db, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
    // Routes added the way a careless new feature would: one declaring nothing, one opting out of sign-in.
    app.get('/api/v1/new-feature', async (request) => ({ login: request.actor.user.login }));
    app.get('/api/v1/careless', { config: { auth: 'none' } }, async (request) => ({ login: request.actor.user.login }));
    try {
      for (const url of ['/api/v1/new-feature', '/api/v1/careless']) {
        const res = await app.inject({ url, headers: { host: 'localhost:8080' } });
        expect(res.statusCode).toBe(401);
        expect(res.headers['content-type']).toContain('application/problem+json');
      }
    } finally {
      await app.close();
      await db.close();
      await database.drop();
    }
  });
});

describe('rate limits on the matched route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { SERVICE_RATE_LIMIT_USER: '3' });
  });
  afterAll(() => t.close());

  it('counts a signed-in user on every API route, HEAD included, and no spelling escapes the count', async () => {
    const { cookie } = await t.user('busy');
    const statuses: number[] = [];
    for (const method of ['GET', 'HEAD', 'GET', 'GET'] as const) {
      statuses.push((await t.request({ method, url: '/api/v1/me', headers: { cookie } })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another spelling is refused before it could be counted apart.
    expect((await t.request({ url: '/%61pi/v1/me', headers: { cookie } })).statusCode).toBe(400);
  });
});
