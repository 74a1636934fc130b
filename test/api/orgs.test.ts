import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { bodyOfSize, orgClient, type Org, type Problem } from '../support/orgs.js';

describe.each(DB_KINDS)('organizations on %s', (kind) => {
  let t: TestApp;
  let api: ReturnType<typeof orgClient>;
  let alice: { user: { id: string }; cookie: string };
  let bob: { user: { id: string }; cookie: string };
  beforeAll(async () => {
    t = await createTestApp(kind);
    api = orgClient(t);
    alice = await t.user('alice');
    bob = await t.user('bob');
  });
  afterAll(() => t.close());

  it('creates an org (201, Location) and makes its creator the owner', async () => {
    const res = await api.call(alice.cookie, 'POST', '/api/v1/orgs', { name: 'Acme', description: 'Rockets' });
    expect(res.statusCode).toBe(201);
    const org = res.json<Org>();
    expect(org).toMatchObject({ name: 'Acme', description: 'Rockets', repo_count: 0 });
    expect(org.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(org.created_at).toBe(org.updated_at);
    expect(res.headers.location).toBe(`/api/v1/orgs/${org.id}`);

    const fetched = await api.call(alice.cookie, 'GET', res.headers.location as string);
    expect(fetched.json()).toEqual(org);
    const members = await api.call(alice.cookie, 'GET', `/api/v1/orgs/${org.id}/members`);
    expect(members.json()).toEqual([expect.objectContaining({ user_id: alice.user.id, login: 'alice', role: 'owner' })]);
    const me = await api.call(alice.cookie, 'GET', '/api/v1/me');
    expect(me.json().orgs).toContainEqual({ id: org.id, name: 'Acme', role: 'owner' });
  });

  it('defaults the description to empty and records an audit event', async () => {
    const org = await api.createOrg(alice.cookie, 'Audited');
    expect(org.description).toBe('');
    const events = await t.db.kysely.selectFrom('audit_events').selectAll().where('org_id', '=', org.id).execute();
    expect(events).toEqual([expect.objectContaining({
      action: 'org.created', actor_id: alice.user.id, actor_login: 'alice', target_type: 'org', target_id: org.id, ip: '127.0.0.1',
    })]);
  });

  it('counts repositories in repo_count', async () => {
    const org = await api.createOrg(alice.cookie, 'Counted');
    await api.createRepo(alice.cookie, org.id, { name: 'one' });
    await api.createRepo(alice.cookie, org.id, { name: 'two' });
    expect((await api.call(alice.cookie, 'GET', `/api/v1/orgs/${org.id}`)).json()).toMatchObject({ repo_count: 2 });
    const listed = (await api.call(alice.cookie, 'GET', '/api/v1/orgs?q=counted')).json<Org[]>();
    expect(listed).toEqual([expect.objectContaining({ id: org.id, repo_count: 2 })]);
  });

  it('refuses a duplicate name, ignoring case, with 409', async () => {
    await api.createOrg(alice.cookie, 'Globex');
    const res = await api.call(bob.cookie, 'POST', '/api/v1/orgs', { name: 'GLOBEX' });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json<Problem>().detail).toContain('GLOBEX');
  });

  it('gives exactly one 201 and one 409 when two requests race for a name', async () => {
    const results = await Promise.all([
      api.call(alice.cookie, 'POST', '/api/v1/orgs', { name: 'Race' }),
      api.call(bob.cookie, 'POST', '/api/v1/orgs', { name: 'race' }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const rows = await t.db.kysely.selectFrom('orgs').select('id').where('name_key', '=', 'race').execute();
    expect(rows).toHaveLength(1);
    const owners = await t.db.kysely.selectFrom('memberships').select('user_id').where('org_id', '=', rows[0]!.id).execute();
    expect(owners).toHaveLength(1);
  });

  it.each([
    ['an unknown field', { name: 'x', color: 'red' }, '/color', 'is not a known field'],
    ['a wrong type', { name: 123 }, '/name', 'must be string'],
    ['a missing name', { description: 'd' }, '/name', "must have required property 'name'"],
    ['an empty name', { name: '' }, '/name', 'must NOT have fewer than 1 characters'],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, '/name', 'must NOT have more than 100 characters'],
    ['a name with a leading space', { name: ' acme' }, '/name', 'must match pattern'],
    ['a description over 1000 characters', { name: 'ok', description: 'd'.repeat(1001) }, '/description', 'must NOT have more than 1000 characters'],
  ])('answers %s with 400 naming the field', async (_case, body, path, message) => {
    const res = await api.call(alice.cookie, 'POST', '/api/v1/orgs', body);
    expect(res.statusCode).toBe(400);
    const problem = res.json<Problem>();
    expect(problem.errors).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it('accepts a name of exactly 100 characters', async () => {
    expect((await api.call(alice.cookie, 'POST', '/api/v1/orgs', { name: 'm'.repeat(100) })).statusCode).toBe(201);
  });

  it('answers malformed JSON with 400, a wrong content type with 415, a body over 1 MiB with 413', async () => {
    const headers = { cookie: alice.cookie, 'content-type': 'application/json' };
    const malformed = await t.request({ method: 'POST', url: '/api/v1/orgs', headers, payload: '{"name": ' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json<Problem>().detail).toContain('not valid JSON');

    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { ...headers, 'content-type': type }, payload: '{"name":"plain"}' });
      expect(res.statusCode, type).toBe(415);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }

    const big = await t.request({ method: 'POST', url: '/api/v1/orgs', headers, payload: bodyOfSize(1024 * 1024 + 1) });
    expect(big.statusCode).toBe(413);
    const id = (await api.createOrg(alice.cookie, 'Big')).id;
    const bigPut = await t.request({ method: 'PUT', url: `/api/v1/orgs/${id}`, headers, payload: bodyOfSize(1024 * 1024 + 1) });
    expect(bigPut.statusCode).toBe(413);
  });

  it('updates name and description; fields left out keep their value', async () => {
    const org = await api.createOrg(alice.cookie, 'Initech', 'old');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = await api.call(alice.cookie, 'PUT', `/api/v1/orgs/${org.id}`, { name: 'Initrode' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ id: org.id, name: 'Initrode', description: 'old' });
    expect(renamed.json<Org>().updated_at > org.updated_at).toBe(true);
    const described = await api.call(alice.cookie, 'PUT', `/api/v1/orgs/${org.id}`, { description: 'new' });
    expect(described.json()).toMatchObject({ name: 'Initrode', description: 'new' });
    // Changing only the case of its own name is not a conflict with itself.
    expect((await api.call(alice.cookie, 'PUT', `/api/v1/orgs/${org.id}`, { name: 'INITRODE' })).statusCode).toBe(200);
  });

  it('refuses to rename onto another org\'s name (409) and validates the update body (400)', async () => {
    await api.createOrg(alice.cookie, 'Taken');
    const org = await api.createOrg(alice.cookie, 'Free');
    expect((await api.call(alice.cookie, 'PUT', `/api/v1/orgs/${org.id}`, { name: 'taken' })).statusCode).toBe(409);
    const bad = await api.call(alice.cookie, 'PUT', `/api/v1/orgs/${org.id}`, { name: 'ok', id: 'other' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<Problem>().errors).toContainEqual({ path: '/id', message: 'is not a known field' });
  });

  it('deletes an org with its repos, teams, memberships and scan data (204)', async () => {
    const org = await api.createOrg(alice.cookie, 'Doomed');
    await api.setMember(alice.cookie, org.id, bob.user.id, 'member');
    const repo = await api.createRepo(alice.cookie, org.id, { name: 'rocket' });
    const team = await api.createTeam(alice.cookie, org.id, { name: 'crew', members: [bob.user.id] });
    await t.db.kysely.insertInto('uploads').values({
      id: 'upload-1', repository_id: repo.id, format: 'sarif', status: 'queued', sha256: 'x', size_bytes: 1, category: '', ref_kind: 'branch', ref_name: 'main', created_at: new Date().toISOString(),
    }).execute();

    const res = await api.call(alice.cookie, 'DELETE', `/api/v1/orgs/${org.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await api.call(alice.cookie, 'GET', `/api/v1/orgs/${org.id}`)).statusCode).toBe(404);
    expect((await api.call(alice.cookie, 'GET', `/api/v1/repos/${repo.id}`)).statusCode).toBe(404);
    const k = t.db.kysely;
    const count = async (table: 'repos' | 'teams' | 'memberships', column: 'org_id') =>
      (await k.selectFrom(table).select(column).where(column, '=', org.id).execute()).length;
    expect(await count('repos', 'org_id')).toBe(0);
    expect(await count('teams', 'org_id')).toBe(0);
    expect(await count('memberships', 'org_id')).toBe(0);
    expect(await k.selectFrom('team_members').selectAll().where('team_id', '=', team.id).execute()).toEqual([]);
    expect(await k.selectFrom('uploads').selectAll().where('id', '=', 'upload-1').execute()).toEqual([]);
    const audit = await k.selectFrom('audit_events').select('action').where('org_id', '=', org.id).where('action', '=', 'org.deleted').execute();
    expect(audit).toHaveLength(1);
    expect((await api.call(alice.cookie, 'DELETE', `/api/v1/orgs/${org.id}`)).statusCode).toBe(404);
  });

  it('lists only the caller\'s orgs, all of them for an administrator', async () => {
    const carol = await t.user('carol');
    const mine = await api.createOrg(carol.cookie, 'Carol Corp');
    const listed = (await api.call(carol.cookie, 'GET', '/api/v1/orgs')).json<Org[]>();
    expect(listed.map((o) => o.id)).toEqual([mine.id]);
    const admin = await t.user('root', { admin: true });
    const all = await api.call(admin.cookie, 'GET', '/api/v1/orgs?per_page=100');
    const total = (await t.db.kysely.selectFrom('orgs').select('id').execute()).length;
    expect(Number(all.headers['x-total-count'])).toBe(total);
    expect(all.json<Org[]>().map((o) => o.id)).toContain(mine.id);
  });

  it('filters by q on the name, ignoring case, with LIKE wildcards taken literally', async () => {
    const dave = await t.user('dave');
    for (const name of ['50% Off', '500 Club', 'a_b', 'axb', 'Back\\slash', 'Ünïcode Ltd']) await api.createOrg(dave.cookie, name);
    const names = async (q: string) =>
      (await api.call(dave.cookie, 'GET', `/api/v1/orgs?q=${encodeURIComponent(q)}`)).json<Org[]>().map((o) => o.name);
    expect(await names('50%')).toEqual(['50% Off']);
    expect(await names('a_b')).toEqual(['a_b']);
    expect(await names('OFF')).toEqual(['50% Off']);
    expect(await names('\\')).toEqual(['Back\\slash']);
    expect(await names('ünï')).toEqual(['Ünïcode Ltd']);
    expect(await names('')).toHaveLength(6);
    expect(await names('nothing like it')).toEqual([]);
    const page = await api.call(dave.cookie, 'GET', '/api/v1/orgs?q=0&per_page=1');
    expect(page.headers['x-total-count']).toBe('2');
    expect(page.headers.link).toContain('q=0');
  });

  it('answers an unknown org id with 404 problem+json', async () => {
    const res = await api.call(alice.cookie, 'GET', '/api/v1/orgs/0190a3b2-0000-7000-8000-000000000000');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, detail: 'The organization was not found.' });
  });
});
