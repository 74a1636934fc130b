import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { isWellFormedKey } from '../../src/auth/key-format.js';

describe.each(DB_KINDS)('API keys on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('kim'));
  });
  afterAll(() => t.close());

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('shows the secret once, in a recognisable form, and never again', async () => {
    const created = await t.request({ method: 'POST', url: '/api/v1/apikeys', headers: { cookie }, payload: { name: 'ci', scopes: ['upload'] } });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body.key).toMatch(/^syd_[0-9A-Za-z]{38}$/);
    expect(isWellFormedKey(body.key)).toBe(true);
    expect(body).toMatchObject({ name: 'ci', scopes: ['upload'], org_ids: null, expires_at: null, last_used_at: null });
    expect(body.key.startsWith(body.prefix)).toBe(true);

    const list = await t.request({ url: '/api/v1/apikeys', headers: { cookie } });
    expect(list.headers['x-total-count']).toBe('1');
    const [listed] = list.json();
    expect(listed.id).toBe(body.id);
    expect(listed).not.toHaveProperty('key');
    expect(list.body).not.toContain(body.key.slice(12));
    const stored = await t.db.kysely.selectFrom('api_keys').selectAll().executeTakeFirstOrThrow();
    expect(stored.key_hash).not.toContain(body.key);
    expect(list.body).not.toContain(stored.key_hash);
  });

  it('authenticates as its user until revoked, then stops at once', async () => {
    const key = await t.apiKey(cookie, { name: 'temp' });
    const me = await t.request({ url: '/api/v1/me', headers: bearer(key) });
    expect(me.statusCode).toBe(200);
    expect(me.json().login).toBe('kim');
    const id = (await t.request({ url: '/api/v1/apikeys?per_page=100', headers: { cookie } })).json().find((k: { name: string }) => k.name === 'temp').id;
    expect((await t.request({ method: 'DELETE', url: `/api/v1/apikeys/${id}`, headers: { cookie } })).statusCode).toBe(204);
    expect((await t.request({ url: '/api/v1/me', headers: bearer(key) })).statusCode).toBe(401);
  });

  it('records when a key was last used', async () => {
    const key = await t.apiKey(cookie, { name: 'used' });
    await t.request({ url: '/api/v1/me', headers: bearer(key) });
    const listed = (await t.request({ url: '/api/v1/apikeys?per_page=100', headers: { cookie } })).json().find((k: { name: string }) => k.name === 'used');
    expect(listed.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('refuses expired, malformed and unknown keys alike', async () => {
    const expiresAt = Date.now() + 60_000;
    const key = await t.apiKey(cookie, { name: 'short', expires_at: new Date(expiresAt).toISOString() });
    // Only Date moves: the key works until its expiry and not from then on, though this instance had
    // looked it up a moment before.
    vi.useFakeTimers({ toFake: ['Date'] });
    let expired;
    try {
      vi.setSystemTime(expiresAt - 100);
      expect((await t.request({ url: '/api/v1/me', headers: bearer(key) })).statusCode).toBe(200);
      vi.setSystemTime(expiresAt);
      expired = await t.request({ url: '/api/v1/me', headers: bearer(key) });
    } finally {
      vi.useRealTimers();
    }
    const malformed = await t.request({ url: '/api/v1/me', headers: bearer('syd_nope') });
    const unknown = await t.request({ url: '/api/v1/me', headers: bearer(key.slice(0, -7) + (key.at(-7) === 'a' ? 'b' : 'a') + key.slice(-6)) });
    const notBearer = await t.request({ url: '/api/v1/me', headers: { authorization: 'Basic abc' } });
    for (const res of [expired, malformed, unknown, notBearer]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe('The API key is not valid.');
    }
  });

  it('does not let a key create or list keys', async () => {
    const key = await t.apiKey(cookie, { name: 'writer' });
    expect((await t.request({ url: '/api/v1/apikeys', headers: bearer(key) })).statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: '/api/v1/apikeys', headers: bearer(key), payload: { name: 'more' } })).statusCode).toBe(403);
  });

  it("answers another user's key id with 404 and leaves it working", async () => {
    const other = await t.user('lee');
    const key = await t.apiKey(other.cookie, { name: 'lees' });
    const id = (await t.request({ url: '/api/v1/apikeys', headers: { cookie: other.cookie } })).json()[0].id;
    expect((await t.request({ method: 'DELETE', url: `/api/v1/apikeys/${id}`, headers: { cookie } })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/v1/me', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('validates the request', async () => {
    const post = (payload: unknown) => t.request({ method: 'POST', url: '/api/v1/apikeys', headers: { cookie }, payload: payload as object });
    const cases: [unknown, string][] = [
      [{}, '/name'],
      [{ name: '' }, '/name'],
      [{ name: 'x', scopes: ['admin'] }, '/scopes/0'],
      [{ name: 'x', expires_at: 'tomorrow' }, '/expires_at'],
      [{ name: 'x', expires_at: '2001-01-01T00:00:00Z' }, '/expires_at'],
      [{ name: 'x', org_ids: ['not-mine'] }, '/org_ids/0'],
      [{ name: 'x', colour: 'red' }, '/colour'],
    ];
    for (const [payload, path] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors.map((e: { path: string }) => e.path), JSON.stringify(payload)).toContain(path);
    }
  });

  it('refuses org_ids that name no organization the user may narrow a key to, naming each', async () => {
    const post = (headers: { cookie: string }, orgIds: string[]) => t.request({ method: 'POST', url: '/api/v1/apikeys', headers, payload: { name: 'narrow', org_ids: orgIds } });
    const mine = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'kims' } })).json().id;
    const stranger = await t.user('sten');
    const theirs = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: stranger.cookie }, payload: { name: 'stens' } })).json().id;

    // Another's org and no org at all read alike, so a key request never tells which orgs exist.
    const member = await post({ cookie }, [mine, theirs, 'no-such-org']);
    expect(member.statusCode).toBe(400);
    expect(member.json().detail).toContain(`${theirs}, no-such-org`);
    expect(member.json().errors).toEqual([
      { path: '/org_ids/1', message: `"${theirs}" is not an organization you belong to` },
      { path: '/org_ids/2', message: '"no-such-org" is not an organization you belong to' },
    ]);

    // A site administrator reaches every org, but not one that does not exist.
    const admin = await t.user('ada', { admin: true });
    const refused = await post({ cookie: admin.cookie }, [theirs, 'no-such-org']);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([{ path: '/org_ids/1', message: '"no-such-org" is not an organization' }]);
    const narrowed = await post({ cookie: admin.cookie }, [theirs, mine]);
    expect(narrowed.statusCode, narrowed.body).toBe(201);
    expect(narrowed.json().org_ids).toEqual([theirs, mine]);
  });

  it("loses access to an org the moment its user is removed from it, and never reaches beyond the user's orgs", async () => {
    const owner = await t.user('olga');
    const worker = await t.user('walt');
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'keyed' } })).json().id;
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'r' } })).json().id;
    const other = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'not-walts' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${org}/members/${worker.user.id}`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
    const key = await t.apiKey(worker.cookie, { scopes: ['upload'] });
    expect((await t.request({ url: `/api/v1/repos/${repo}/status`, headers: bearer(key) })).statusCode).toBe(200);
    expect((await t.request({ url: `/api/v1/orgs/${other}`, headers: bearer(key) })).statusCode).toBe(404);

    await t.request({ method: 'DELETE', url: `/api/v1/orgs/${org}/members/${worker.user.id}`, headers: { cookie: owner.cookie } });
    expect((await t.request({ url: `/api/v1/repos/${repo}/status`, headers: bearer(key) })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: bearer(key), payload: '{"version":"2.1.0","runs":[]}' })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/v1/orgs', headers: bearer(key) })).json()).toEqual([]);
  });

  it('narrows a read key to GET requests', async () => {
    const key = await t.apiKey(cookie, { name: 'reader', scopes: ['read'] });
    expect((await t.request({ url: '/api/v1/me', headers: bearer(key) })).statusCode).toBe(200);
    const res = await t.request({ method: 'POST', url: '/auth/logout', headers: bearer(key) });
    expect(res.statusCode).toBe(403);
  });
});
