import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';

describe.each(DB_KINDS)('audit log on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('records each security-relevant event with who, what, when and from where', async () => {
    const dev = await t.request({ method: 'POST', url: '/auth/dev-login', remoteAddress: '203.0.113.9' });
    const admin = sessionCookie(dev);
    const owner = await t.user('owner');
    const member = await t.user('member');
    const as = (cookie: string) => ({ cookie });
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: as(owner.cookie), payload: { name: 'audited' } })).json().id;
    const repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: as(owner.cookie), payload: { name: 'r' } })).json().id;
    const team = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/teams`, headers: as(owner.cookie), payload: { name: 't' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${org}/members/${member.user.id}`, headers: as(owner.cookie), payload: { role: 'member' } });
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${org}/members/${member.user.id}`, headers: as(owner.cookie), payload: { role: 'owner' } });
    await t.request({ method: 'DELETE', url: `/api/v1/orgs/${org}/members/${member.user.id}`, headers: as(owner.cookie) });
    await t.request({ method: 'DELETE', url: `/api/v1/teams/${team}`, headers: as(owner.cookie) });
    await t.request({ method: 'DELETE', url: `/api/v1/repos/${repo}`, headers: as(owner.cookie) });
    const key = (await t.request({ method: 'POST', url: '/api/v1/apikeys', headers: as(owner.cookie), payload: { name: 'k' } })).json();
    await t.request({ method: 'DELETE', url: `/api/v1/apikeys/${key.id}`, headers: as(owner.cookie) });

    const orgLog = (await t.request({ url: `/api/v1/orgs/${org}/audit?per_page=100`, headers: as(owner.cookie) })).json();
    expect(orgLog.map((e: { action: string }) => e.action).reverse()).toEqual([
      'org.created', 'repo.created', 'team.created', 'member.added', 'member.role_changed', 'member.removed', 'team.deleted', 'repo.deleted',
    ]);
    expect(orgLog[0]).toMatchObject({ actor: { id: owner.user.id, login: 'owner' }, org_id: org, target: { type: 'repo', id: repo }, ip: expect.any(String) });
    expect(orgLog[0].created_at).toMatch(/Z$/);

    const site = (await t.request({ url: '/api/v1/audit?per_page=100', headers: as(admin) })).json();
    const actions = site.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['dev_login', 'api_key.created', 'api_key.revoked', 'org.created']));
    expect(site.find((e: { action: string }) => e.action === 'dev_login')).toMatchObject({ ip: '203.0.113.9', actor: { login: 'dev' } });
    expect(JSON.stringify(site)).not.toContain(key.key);

    await t.request({ method: 'DELETE', url: `/api/v1/orgs/${org}`, headers: as(owner.cookie) });
    const afterDelete = (await t.request({ url: '/api/v1/audit?per_page=1', headers: as(admin) })).json();
    expect(afterDelete[0]).toMatchObject({ action: 'org.deleted', org_id: org });
  });

  it('shows an org log to its owners and administrators only', async () => {
    const owner = await t.user('o2');
    const member = await t.user('m2');
    const stranger = await t.user('s2');
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'private-log' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${org}/members/${member.user.id}`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
    const read = (cookie?: string) => t.request({ url: `/api/v1/orgs/${org}/audit`, headers: cookie ? { cookie } : {} });
    expect((await read(owner.cookie)).statusCode).toBe(200);
    expect((await read(member.cookie)).statusCode).toBe(403);
    expect((await read(stranger.cookie)).statusCode).toBe(404);
    expect((await read()).statusCode).toBe(401);
    expect((await t.request({ url: '/api/v1/audit', headers: { cookie: owner.cookie } })).statusCode).toBe(403);
  });
  it('filters by exact action and by actor (user id or login), on the org log and the site log', async () => {
    const admin = await t.user('filter-admin', { admin: true });
    const alice = await t.user('alice');
    const bob = await t.user('bob');
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: alice.cookie }, payload: { name: 'filtered' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${org}/members/${bob.user.id}`, headers: { cookie: alice.cookie }, payload: { role: 'owner' } });
    await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie: alice.cookie }, payload: { name: 'a1' } });
    await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie: bob.cookie }, payload: { name: 'b1' } });
    await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie: bob.cookie }, payload: { name: 'b2' } });

    const read = async (url: string, cookie: string) => {
      const res = await t.request({ url, headers: { cookie } });
      expect(res.statusCode).toBe(200);
      return { total: Number(res.headers['x-total-count']), events: res.json<{ action: string; actor: { login: string } }[]>() };
    };
    const repos = await read(`/api/v1/orgs/${org}/audit?action=repo.created`, alice.cookie);
    expect(repos.total).toBe(3);
    expect(repos.events.every((e) => e.action === 'repo.created')).toBe(true);
    // Exact, not a prefix: "repo" names no action.
    expect((await read(`/api/v1/orgs/${org}/audit?action=repo`, alice.cookie)).total).toBe(0);

    const byLogin = await read(`/api/v1/orgs/${org}/audit?actor=bob`, alice.cookie);
    expect(byLogin.events.map((e) => e.action)).toEqual(['repo.created', 'repo.created']);
    expect(byLogin.events.every((e) => e.actor.login === 'bob')).toBe(true);
    const byId = await read(`/api/v1/orgs/${org}/audit?actor=${alice.user.id}&action=repo.created`, alice.cookie);
    expect(byId.total).toBe(1);
    expect(byId.events[0]!.actor.login).toBe('alice');

    const site = await read(`/api/v1/audit?actor=${bob.user.id}&per_page=100`, admin.cookie);
    expect(site.events.length).toBeGreaterThan(0);
    expect(site.events.every((e) => e.actor.login === 'bob')).toBe(true);
    expect((await read('/api/v1/audit?action=org.created&actor=alice', admin.cookie)).events.map((e) => e.action)).toEqual(['org.created']);

    const empty = await t.request({ url: `/api/v1/orgs/${org}/audit?action=`, headers: { cookie: alice.cookie } });
    expect(empty.statusCode).toBe(400);
    expect(empty.headers['content-type']).toContain('application/problem+json');
  });
});
