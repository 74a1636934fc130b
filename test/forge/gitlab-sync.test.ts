import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { startGitlabEmulator, type GitlabEmulator, type GlGroup } from '../support/forge-emulator/gitlab.js';
import { eventually, forgeSession, waitForPass } from './helpers.js';

const SECRET = 'gl-system-hook-token';

describe.each(DB_KINDS)('an organisation following a GitLab group (%s)', (kind) => {
  let gl: GitlabEmulator;
  let t: TestApp;
  let top: GlGroup;
  let platform: GlGroup;
  let orgId: string;
  let alice: { cookie: string };

  const repos = async () => (await t.request({ url: `/api/v1/orgs/${orgId}/repos?per_page=100`, headers: { cookie: alice.cookie } }))
    .json<{ id: string; name: string; forge_id: string | null; full_name: string | null; archived: boolean; gone: boolean }[]>();
  const memberships = () => t.db.kysely.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.login', 'users.last_login_at', 'memberships.role', 'memberships.source']).where('org_id', '=', orgId).orderBy('users.login').execute();
  const send = (payload: unknown, opts: { token?: string | null; uuid?: string; provider?: string } = {}) => {
    const hook = gl.hook(payload, { token: opts.token === undefined ? SECRET : opts.token, uuid: opts.uuid });
    return t.request({ method: 'POST', url: `/hooks/forge/${opts.provider ?? 'gl'}`, headers: hook.headers, payload: hook.payload });
  };

  beforeAll(async () => {
    gl = await startGitlabEmulator({ pageSize: 2 });
    for (const [id, name] of [[201, 'alice'], [202, 'bob'], [203, 'carol'], [204, 'dave']] as const) gl.addUser(id, name);
    top = gl.addGroup('acme-corp');
    top.members.set(201, 50).set(202, 40).set(203, 30);
    for (const path of ['web', 'mobile', 'docs', 'infra']) top.projects.push({ id: gl.nextId(), path, default_branch: 'main', visibility: 'private', archived: false });
    platform = gl.addGroup('platform', top);
    platform.members.set(202, 40).set(203, 30);
    for (const path of ['api', 'worker', 'db']) platform.projects.push({ id: gl.nextId(), path, default_branch: 'main', visibility: 'internal', archived: path === 'db' });
    const providers = [
      { id: 'gl', type: 'gitlab', name: 'GitLab', client_id: 'cid', client_secret: 'csecret', url: gl.origin, api_url: gl.apiUrl, token: gl.botToken, webhook_secret: SECRET },
    ];
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify(providers), SERVICE_FORGE_ALLOW_PRIVATE: 'true' });
    t.app.services.forge.startWorkers(t.app.log);
    alice = await forgeSession(t, 'gl', '201', 'alice', gl.tokenFor(201));
    orgId = (await orgClient(t).createOrg(alice.cookie, 'Acme Corp')).id;
  }, 30_000);
  afterAll(async () => {
    await t?.app.services.forge.stopWorkers();
    await t?.close();
    await gl?.close();
  });

  it('refuses linking by a Maintainer (only Owners may link): 403', async () => {
    const bob = await forgeSession(t, 'gl', '202', 'bob', gl.tokenFor(202));
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'owner');
    const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: bob.cookie }, payload: { provider: 'gl', owner: 'acme-corp' } });
    expect(res.statusCode, res.body).toBe(403);
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'member');
  });

  it('links as an Owner and syncs projects, members and subgroup teams at pages of 2 through a 429', async () => {
    gl.inject('retry_after', 1, /\/projects$/);
    const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie }, payload: { provider: 'gl', owner: 'acme-corp' } });
    expect(res.statusCode, res.body).toBe(200);
    const link = await waitForPass(t, orgId, alice.cookie);
    expect(link).toMatchObject({ last_error: null, counts: { repositories: 7, members: 3, teams: 1 } });
    expect(gl.requests.some((r) => r.includes('/projects?') && r.includes('page=4'))).toBe(true);
    const list = await repos();
    expect(list.find((r) => r.full_name === 'acme-corp/platform/api')).toMatchObject({ name: 'platform/api', gone: false });
    expect(list.find((r) => r.full_name === 'acme-corp/platform/db')).toMatchObject({ archived: true });
    expect((await memberships()).map((m) => [m.login, m.role])).toEqual([['alice', 'owner'], ['bob', 'member'], ['carol', 'member']]);
    // The subgroup's lowest direct access level is Developer: triage on each of its projects.
    const grants = await t.db.kysely.selectFrom('team_repositories').innerJoin('teams', 'teams.id', 'team_repositories.team_id').innerJoin('repos', 'repos.id', 'team_repositories.repository_id')
      .select(['teams.name as team', 'teams.source', 'repos.name as repo', 'team_repositories.role']).where('teams.org_id', '=', orgId).orderBy('repos.name').execute();
    expect(grants).toEqual(['platform/api', 'platform/db', 'platform/worker'].map((repo) => ({ team: 'platform', source: 'forge', repo, role: 'triage' })));
  });

  it('applies project, group member and subgroup system hooks within seconds', async () => {
    top.projects.push({ id: gl.nextId(), path: 'new-service', default_branch: 'main', visibility: 'private', archived: false });
    expect((await send({ event_name: 'project_create', name: 'new-service', path: 'new-service', path_with_namespace: 'acme-corp/new-service', project_id: top.projects.at(-1)!.id })).statusCode).toBe(202);
    await eventually(async () => expect((await repos()).map((r) => r.name)).toContain('new-service'));

    top.members.set(204, 20);
    await send({ event_name: 'user_add_to_group', group_path: 'acme-corp', group_id: top.id, user_id: 204, user_username: 'dave', group_access: 'Reporter' });
    await eventually(async () => expect((await memberships()).map((m) => m.login)).toContain('dave'));

    top.members.delete(203);
    platform.members.delete(203);
    await send({ event_name: 'user_remove_from_group', group_path: 'acme-corp', group_id: top.id, user_id: 203, user_username: 'carol', group_access: 'Developer' });
    await eventually(async () => expect((await memberships()).map((m) => m.login)).not.toContain('carol'));
    // With carol gone the subgroup's lowest direct level is Maintainer: admin.
    await eventually(async () => {
      const roles = await t.db.kysely.selectFrom('team_repositories').innerJoin('teams', 'teams.id', 'team_repositories.team_id').select('team_repositories.role').where('teams.org_id', '=', orgId).execute();
      expect(new Set(roles.map((r) => r.role))).toEqual(new Set(['admin']));
    });

    const security = gl.addGroup('security', top);
    security.members.set(201, 20);
    await send({ event_name: 'group_create', name: 'security', path: 'security', full_path: 'acme-corp/security', group_id: security.id });
    await eventually(async () => expect((await t.db.kysely.selectFrom('teams').select('name').where('org_id', '=', orgId).execute()).map((x) => x.name).sort()).toEqual(['platform', 'security']));
  });

  it('refuses system hooks with another token, none, or sent to another provider (401), and acknowledges a replayed uuid without applying it', async () => {
    const count = async () => (await t.db.kysely.selectFrom('forge_events').select('id').execute()).length;
    const before = await count();
    const payload = { event_name: 'user_remove_from_group', group_path: 'acme-corp', user_id: 201 };
    expect((await send(payload, { token: 'wrong' })).statusCode).toBe(401);
    expect((await send(payload, { token: null })).statusCode).toBe(401);
    expect((await send(payload, { provider: 'github' })).statusCode).toBe(401);
    expect(await count()).toBe(before);

    const first = await send({ event_name: 'project_update', path_with_namespace: 'acme-corp/web' }, { uuid: 'gl-uuid-1' });
    expect(first.json()).toEqual({ status: 'queued' });
    const replay = await send({ event_name: 'project_update', path_with_namespace: 'acme-corp/web' }, { uuid: 'gl-uuid-1' });
    expect(replay.json()).toEqual({ status: 'duplicate' });
    expect(await count()).toBe(before + 1);
  });
});
