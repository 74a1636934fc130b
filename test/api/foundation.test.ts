import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';

describe.each(DB_KINDS)('foundation on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('answers /healthz and /readyz without authentication', async () => {
    expect((await t.request({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.request({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('answers an unknown route with a problem+json 404', async () => {
    const res = await t.request({ url: '/nope?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'No route matches GET /nope.' });
  });

  it('echoes a safe X-Request-Id and makes one up otherwise', async () => {
    const echoed = await t.request({ url: '/healthz', headers: { 'x-request-id': 'ci-run-42' } });
    expect(echoed.headers['x-request-id']).toBe('ci-run-42');
    const made = await t.request({ url: '/healthz', headers: { 'x-request-id': 'bad id\n' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives 401 problem+json with WWW-Authenticate on /api/v1 without credentials', async () => {
    const res = await t.request({ url: '/api/v1/me' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json()).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('turns /readyz to 503 when the database is gone, and keeps serving', async () => {
    const other = await createTestApp(kind);
    await other.db.close();
    const res = await other.request({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect((await other.request({ url: '/healthz' })).statusCode).toBe(200);
    await other.app.close();
    await other.database.drop();
  });
});

describe.each(DB_KINDS)('NUL characters on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('nul'));
  });
  afterAll(() => t.close());

  it('are refused with a 400 naming the field, in a path, a query or a JSON body', async () => {
    const cases = [
      { url: '/api/v1/repos/%00', path: '/params/id' },
      { url: '/api/v1/orgs?q=a%00b', path: '/query/q' },
      { url: '/api/v1/orgs', method: 'POST' as const, payload: { name: 'a\u0000b' }, path: '/name' },
    ];
    for (const { url, method = 'GET' as const, payload, path } of cases) {
      const res = await t.request({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().errors).toEqual([{ path, message: 'must not contain a NUL character' }]);
    }
  });
});
