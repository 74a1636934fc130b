import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { bodyOfSize, orgClient, type Org, type Problem, type Team } from '../support/orgs.js';

describe.each(DB_KINDS)('teams on %s', (kind) => {
  let t: TestApp;
  let api: ReturnType<typeof orgClient>;
  let owner: { user: { id: string }; cookie: string };
  let ann: { user: { id: string }; cookie: string };
  let ben: { user: { id: string }; cookie: string };
  let outsider: { user: { id: string }; cookie: string };
  let org: Org;
  beforeAll(async () => {
    t = await createTestApp(kind);
    api = orgClient(t);
    owner = await t.user('tess');
    ann = await t.user('ann');
    ben = await t.user('ben');
    outsider = await t.user('otto');
    org = await api.createOrg(owner.cookie, 'Team Org');
    await api.setMember(owner.cookie, org.id, ann.user.id, 'member');
    await api.setMember(owner.cookie, org.id, ben.user.id, 'member');
  });
  afterAll(() => t.close());

  it('creates a team with members (201, Location)', async () => {
    const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/teams`, { name: 'Platform', description: 'Runs things', members: [ann.user.id, ben.user.id, ann.user.id] });
    expect(res.statusCode).toBe(201);
    const team = res.json<Team>();
    expect(team).toMatchObject({ org_id: org.id, name: 'Platform', description: 'Runs things' });
    expect([...team.members].sort()).toEqual([ann.user.id, ben.user.id].sort());
    expect(res.headers.location).toBe(`/api/v1/teams/${team.id}`);
    const fetched = await api.call(ann.cookie, 'GET', res.headers.location as string);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json<Team>()).toEqual(team);
    expect((await api.call(outsider.cookie, 'GET', res.headers.location as string)).statusCode).toBe(404);
  });

  it('creates a team without members or description', async () => {
    expect(await api.createTeam(owner.cookie, org.id, { name: 'Empty' })).toMatchObject({ description: '', members: [] });
  });

  it('refuses members outside the org with 400 naming the index', async () => {
    const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/teams`, { name: 'Mixed', members: [ann.user.id, outsider.user.id, 'no-such-user'] });
    expect(res.statusCode).toBe(400);
    expect(res.json<Problem>().errors).toEqual([
      { path: '/members/1', message: `"${outsider.user.id}" is not a member of this organization` },
      { path: '/members/2', message: '"no-such-user" is not a member of this organization' },
    ]);
    expect(res.json<Problem>().detail).toContain(`${outsider.user.id}, no-such-user`);
    const list = (await api.call(owner.cookie, 'GET', `/api/v1/orgs/${org.id}/teams?per_page=100`)).json<Team[]>();
    expect(list.map((team) => team.name)).not.toContain('Mixed');
  });

  it('refuses a duplicate name in the org, ignoring case (409)', async () => {
    await api.createTeam(owner.cookie, org.id, { name: 'Security' });
    expect((await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/teams`, { name: 'SECURITY' })).statusCode).toBe(409);
    const other = await api.createTeam(owner.cookie, org.id, { name: 'Ops' });
    expect((await api.call(owner.cookie, 'PUT', `/api/v1/teams/${other.id}`, { name: 'security' })).statusCode).toBe(409);
  });

  it('updates name, description and members; fields left out keep their value', async () => {
    const team = await api.createTeam(owner.cookie, org.id, { name: 'Web', description: 'old', members: [ann.user.id] });
    const renamed = await api.call(owner.cookie, 'PUT', `/api/v1/teams/${team.id}`, { name: 'Web UI' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Web UI', description: 'old', members: [ann.user.id] });
    const swapped = await api.call(owner.cookie, 'PUT', `/api/v1/teams/${team.id}`, { members: [ben.user.id], description: 'new' });
    expect(swapped.json()).toMatchObject({ name: 'Web UI', description: 'new', members: [ben.user.id] });
    const emptied = await api.call(owner.cookie, 'PUT', `/api/v1/teams/${team.id}`, { members: [] });
    expect(emptied.json()).toMatchObject({ members: [] });
    const bad = await api.call(owner.cookie, 'PUT', `/api/v1/teams/${team.id}`, { members: [outsider.user.id] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<Problem>().errors).toEqual([{ path: '/members/0', message: `"${outsider.user.id}" is not a member of this organization` }]);
  });

  it.each([
    ['an unknown field', { name: 'x', lead: 'ann' }, '/lead', 'is not a known field'],
    ['a wrong type', { name: 'x', members: 'ann' }, '/members', 'must be array'],
    ['a wrong member type', { name: 'x', members: [1] }, '/members/0', 'must be string'],
    ['a name over 100 characters', { name: 't'.repeat(101) }, '/name', 'must NOT have more than 100 characters'],
  ])('answers %s with 400 naming the field', async (_case, body, path, message) => {
    const res = await api.call(owner.cookie, 'POST', `/api/v1/orgs/${org.id}/teams`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json<Problem>().errors).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it('answers malformed JSON 400, wrong content type 415, too large 413 on create and update', async () => {
    const team = await api.createTeam(owner.cookie, org.id, { name: 'Limits' });
    const headers = { cookie: owner.cookie, 'content-type': 'application/json' };
    for (const [method, url] of [['POST', `/api/v1/orgs/${org.id}/teams`], ['PUT', `/api/v1/teams/${team.id}`]] as const) {
      expect((await t.request({ method, url, headers, payload: '[' })).statusCode).toBe(400);
      expect((await t.request({ method, url, headers: { ...headers, 'content-type': 'text/csv' }, payload: 'a,b' })).statusCode).toBe(415);
      expect((await t.request({ method, url, headers, payload: bodyOfSize(1024 * 1024 + 1) })).statusCode).toBe(413);
    }
  });

  it('lists teams oldest first with their members', async () => {
    const own = await api.createOrg(owner.cookie, 'Team Listing');
    await api.setMember(owner.cookie, own.id, ann.user.id, 'member');
    await api.createTeam(owner.cookie, own.id, { name: 'first', members: [ann.user.id, owner.user.id] });
    await api.createTeam(owner.cookie, own.id, { name: 'second' });
    const res = await api.call(owner.cookie, 'GET', `/api/v1/orgs/${own.id}/teams`);
    expect(res.headers['x-total-count']).toBe('2');
    const teams = res.json<Team[]>();
    expect(teams.map((team) => team.name)).toEqual(['first', 'second']);
    expect([...teams[0]!.members].sort()).toEqual([ann.user.id, owner.user.id].sort());
  });

  it('deletes a team (204), then 404 on update and delete', async () => {
    const team = await api.createTeam(owner.cookie, org.id, { name: 'Gone', members: [ann.user.id] });
    expect((await api.call(owner.cookie, 'DELETE', `/api/v1/teams/${team.id}`)).statusCode).toBe(204);
    expect((await api.call(owner.cookie, 'DELETE', `/api/v1/teams/${team.id}`)).statusCode).toBe(404);
    expect((await api.call(owner.cookie, 'PUT', `/api/v1/teams/${team.id}`, { name: 'x' })).statusCode).toBe(404);
    expect(await t.db.kysely.selectFrom('team_members').selectAll().where('team_id', '=', team.id).execute()).toEqual([]);
    const actions = await t.db.kysely.selectFrom('audit_events').select('action').where('target_id', '=', team.id).orderBy('created_at').orderBy('id').execute();
    expect(actions.map((a) => a.action)).toEqual(['team.created', 'team.deleted']);
  });
});
