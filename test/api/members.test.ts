import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { bodyOfSize, orgClient, type Problem, type Team } from '../support/orgs.js';

interface Member { user_id: string; login: string; role: string; joined_at: string }

describe.each(DB_KINDS)('members on %s', (kind) => {
  let t: TestApp;
  let api: ReturnType<typeof orgClient>;
  let owner: { user: { id: string }; cookie: string };
  beforeAll(async () => {
    t = await createTestApp(kind);
    api = orgClient(t);
    owner = await t.user('owen');
  });
  afterAll(() => t.close());

  const membersOf = async (orgId: string) =>
    (await api.call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/members?per_page=100`)).json<Member[]>();

  it('adds a member (201, Location), keeps the same role (200) and changes it (200)', async () => {
    const org = await api.createOrg(owner.cookie, 'Members Inc');
    const mary = await t.user('mary');
    const url = `/api/v1/orgs/${org.id}/members/${mary.user.id}`;
    const added = await api.call(owner.cookie, 'PUT', url, { role: 'member' });
    expect(added.statusCode).toBe(201);
    expect(added.headers.location).toBe(url);
    expect((await api.call(mary.cookie, 'GET', url)).json()).toMatchObject({ user_id: mary.user.id, role: 'member' });
    expect(added.json()).toMatchObject({ user_id: mary.user.id, login: 'mary', name: 'mary', avatar_url: null, role: 'member' });
    expect((await api.call(owner.cookie, 'PUT', url, { role: 'member' })).statusCode).toBe(200);
    const promoted = await api.call(owner.cookie, 'PUT', url, { role: 'owner' });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ role: 'owner' });
    expect((await membersOf(org.id)).map((m) => [m.login, m.role])).toEqual([['owen', 'owner'], ['mary', 'owner']]);

    const audit = await t.db.kysely.selectFrom('audit_events').select(['action', 'actor_id', 'org_id', 'details'])
      .where('target_id', '=', mary.user.id).orderBy('created_at').orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['member.added', 'member.role_changed']);
    expect(audit[1]).toMatchObject({ actor_id: owner.user.id, org_id: org.id });
    expect(JSON.parse(audit[1]!.details!)).toMatchObject({ from: 'member', to: 'owner' });
  });

  it('gives the new member read access at once, and takes it away on removal', async () => {
    const org = await api.createOrg(owner.cookie, 'Access Co');
    const rita = await t.user('rita');
    expect((await api.call(rita.cookie, 'GET', `/api/v1/orgs/${org.id}`)).statusCode).toBe(404);
    await api.setMember(owner.cookie, org.id, rita.user.id, 'member');
    expect((await api.call(rita.cookie, 'GET', `/api/v1/orgs/${org.id}`)).statusCode).toBe(200);
    expect((await api.call(owner.cookie, 'DELETE', `/api/v1/orgs/${org.id}/members/${rita.user.id}`)).statusCode).toBe(204);
    expect((await api.call(rita.cookie, 'GET', `/api/v1/orgs/${org.id}`)).statusCode).toBe(404);
  });

  it('only adds users who have signed in (404 otherwise)', async () => {
    const org = await api.createOrg(owner.cookie, 'Signed In Only');
    const unknown = await api.call(owner.cookie, 'PUT', `/api/v1/orgs/${org.id}/members/no-such-user`, { role: 'member' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json<Problem>().detail).toContain('signed in');
    const ghost = await t.user('ghost');
    await t.db.kysely.updateTable('users').set({ last_login_at: null }).where('id', '=', ghost.user.id).execute();
    expect((await api.call(owner.cookie, 'PUT', `/api/v1/orgs/${org.id}/members/${ghost.user.id}`, { role: 'member' })).statusCode).toBe(404);
    expect((await api.call(owner.cookie, 'GET', '/api/v1/users?q=ghost')).json()).toEqual([]);
  });

  it.each([
    ['an unknown role', { role: 'admin' }, '/role'],
    ['a missing role', {}, '/role'],
    ['an unknown field', { role: 'member', team: 'x' }, '/team'],
  ])('answers %s with 400 naming the field', async (_case, body, path) => {
    const org = await api.createOrg(owner.cookie, `Validation ${path}${Object.keys(body).length}`);
    const res = await api.call(owner.cookie, 'PUT', `/api/v1/orgs/${org.id}/members/${owner.user.id}`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json<Problem>().errors?.map((e) => e.path)).toContain(path);
  });

  it('answers malformed JSON 400, wrong content type 415, too large 413', async () => {
    const org = await api.createOrg(owner.cookie, 'Member Limits');
    const url = `/api/v1/orgs/${org.id}/members/${owner.user.id}`;
    const headers = { cookie: owner.cookie, 'content-type': 'application/json' };
    expect((await t.request({ method: 'PUT', url, headers, payload: '{"role":' })).statusCode).toBe(400);
    expect((await t.request({ method: 'PUT', url, headers: { ...headers, 'content-type': 'text/plain' }, payload: '{"role":"member"}' })).statusCode).toBe(415);
    expect((await t.request({ method: 'PUT', url, headers, payload: bodyOfSize(1024 * 1024 + 1) })).statusCode).toBe(413);
  });

  it('keeps at least one owner: the last cannot be demoted or removed (409)', async () => {
    const org = await api.createOrg(owner.cookie, 'One Owner');
    const base = `/api/v1/orgs/${org.id}/members/${owner.user.id}`;
    const demote = await api.call(owner.cookie, 'PUT', base, { role: 'member' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json<Problem>().detail).toContain('at least one owner');
    expect((await api.call(owner.cookie, 'DELETE', base)).statusCode).toBe(409);
    const admin = await t.user('admiral', { admin: true });
    expect((await api.call(admin.cookie, 'DELETE', base)).statusCode).toBe(409);

    const second = await t.user('second');
    await api.setMember(owner.cookie, org.id, second.user.id, 'owner');
    expect((await api.call(owner.cookie, 'PUT', base, { role: 'member' })).statusCode).toBe(200);
    expect((await api.call(second.cookie, 'DELETE', `/api/v1/orgs/${org.id}/members/${second.user.id}`)).statusCode).toBe(409);
    expect((await membersOf(org.id)).map((m) => [m.login, m.role])).toEqual([['owen', 'member'], ['second', 'owner']]);
  });

  it('leaves one owner when both owners step down at the same moment (one 200, one 409)', async () => {
    // Several rounds: without the org lock PostgreSQL lets both through in most of them.
    const heir = await t.user('heir');
    for (let round = 0; round < 8; round++) {
      const org = await api.createOrg(owner.cookie, `Abdication ${round}`);
      await api.setMember(owner.cookie, org.id, heir.user.id, 'owner');
      const results = await Promise.all([owner, heir].map((who) =>
        api.call(who.cookie, 'PUT', `/api/v1/orgs/${org.id}/members/${who.user.id}`, { role: 'member' })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const owners = await t.db.kysely.selectFrom('memberships').select('user_id').where('org_id', '=', org.id).where('role', '=', 'owner').execute();
      expect(owners).toHaveLength(1);
    }
  });

  it('leaves one owner when two owners demote each other at the same moment', async () => {
    const org = await api.createOrg(owner.cookie, 'Standoff');
    const other = await t.user('rival');
    await api.setMember(owner.cookie, org.id, other.user.id, 'owner');
    const results = await Promise.all([
      api.call(owner.cookie, 'PUT', `/api/v1/orgs/${org.id}/members/${other.user.id}`, { role: 'member' }),
      api.call(other.cookie, 'DELETE', `/api/v1/orgs/${org.id}/members/${owner.user.id}`),
    ]);
    // Whichever lands second fails, never both succeed: 409 (last owner), 403 (demoted meanwhile)
    // or 404 (removed meanwhile, so the org is no longer visible).
    const [first, second] = results.map((r) => r.statusCode).sort();
    expect([200, 204]).toContain(first);
    expect([403, 404, 409]).toContain(second);
    const owners = await t.db.kysely.selectFrom('memberships').select('user_id').where('org_id', '=', org.id).where('role', '=', 'owner').execute();
    expect(owners).toHaveLength(1);
  });

  it('removing a member also removes them from the org\'s teams, not from other orgs\' teams', async () => {
    const org = await api.createOrg(owner.cookie, 'Teamed');
    const other = await api.createOrg(owner.cookie, 'Teamed Elsewhere');
    const tom = await t.user('tom');
    await api.setMember(owner.cookie, org.id, tom.user.id, 'member');
    await api.setMember(owner.cookie, other.id, tom.user.id, 'member');
    const team = await api.createTeam(owner.cookie, org.id, { name: 'red', members: [tom.user.id, owner.user.id] });
    const elsewhere = await api.createTeam(owner.cookie, other.id, { name: 'blue', members: [tom.user.id] });

    const res = await api.call(owner.cookie, 'DELETE', `/api/v1/orgs/${org.id}/members/${tom.user.id}`);
    expect(res.statusCode).toBe(204);
    const teams = (await api.call(owner.cookie, 'GET', `/api/v1/orgs/${org.id}/teams`)).json<Team[]>();
    expect(teams.find((x) => x.id === team.id)?.members).toEqual([owner.user.id]);
    const otherTeams = (await api.call(owner.cookie, 'GET', `/api/v1/orgs/${other.id}/teams`)).json<Team[]>();
    expect(otherTeams.find((x) => x.id === elsewhere.id)?.members).toEqual([tom.user.id]);
    expect((await api.call(owner.cookie, 'DELETE', `/api/v1/orgs/${org.id}/members/${tom.user.id}`)).statusCode).toBe(404);
    const audit = await t.db.kysely.selectFrom('audit_events').select('action').where('org_id', '=', org.id).where('target_id', '=', tom.user.id).execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['member.added', 'member.removed']);
  });

  it('lists members in the order they joined, paginated', async () => {
    const org = await api.createOrg(owner.cookie, 'Crowd');
    const logins = ['m1', 'm2', 'm3'];
    for (const login of logins) await api.setMember(owner.cookie, org.id, (await t.user(login)).user.id, 'member');
    const page = await api.call(owner.cookie, 'GET', `/api/v1/orgs/${org.id}/members?per_page=2&page=2`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['x-total-count']).toBe('4');
    expect(page.json<Member[]>().map((m) => m.login)).toEqual(['m2', 'm3']);
  });

  describe('user search', () => {
    it('finds users by login prefix, ignoring case, at most 20, with public fields only', async () => {
      for (let i = 0; i < 25; i++) await t.user(`search${String(i).padStart(2, '0')}`);
      await t.user('Searcher');
      await t.user('se%rch');
      const res = await api.call(owner.cookie, 'GET', '/api/v1/users?q=SEARCH');
      expect(res.statusCode).toBe(200);
      const users = res.json<{ id: string; login: string }[]>();
      expect(users).toHaveLength(20);
      expect(Object.keys(users[0]!).sort()).toEqual(['avatar_url', 'id', 'login', 'name']);
      expect(users.every((u) => u.login.toLowerCase().startsWith('search'))).toBe(true);
      const literal = (await api.call(owner.cookie, 'GET', `/api/v1/users?q=${encodeURIComponent('se%')}`)).json<{ login: string }[]>();
      expect(literal.map((u) => u.login)).toEqual(['se%rch']);
      expect((await api.call(owner.cookie, 'GET', '/api/v1/users?q=searche')).json<{ login: string }[]>().map((u) => u.login)).toEqual(['Searcher']);
    });

    it('needs q (400) and a signed-in caller (401)', async () => {
      expect((await api.call(owner.cookie, 'GET', '/api/v1/users')).statusCode).toBe(400);
      expect((await api.call(owner.cookie, 'GET', '/api/v1/users?q=')).statusCode).toBe(400);
      expect((await t.request({ url: '/api/v1/users?q=a' })).statusCode).toBe(401);
    });
  });
});
