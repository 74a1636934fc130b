import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';
import { startGithubEmulator, type GhOrg, type GithubEmulator } from '../support/forge-emulator/github.js';
import { eventually, forgeSession, waitForPass } from './helpers.js';

const SECRET = 'gh-webhook-secret-value';

describe.each(DB_KINDS)('an organisation following a GitHub organisation (%s)', (kind) => {
  let gh: GithubEmulator;
  let t: TestApp;
  let acme: GhOrg;
  let orgId: string;
  let alice: { cookie: string };
  const repoIds: number[] = [];

  const forgeGet = () => t.request({ url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie } });
  const repos = async () => (await t.request({ url: `/api/v1/orgs/${orgId}/repos?per_page=100`, headers: { cookie: alice.cookie } }))
    .json<{ id: string; name: string; forge_id: string | null; full_name: string | null; archived: boolean; gone: boolean; visibility: string | null; default_branch: string | null }[]>();
  const memberships = () => t.db.kysely.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.login', 'users.forge_user_id', 'users.last_login_at', 'memberships.role', 'memberships.source']).where('org_id', '=', orgId).orderBy('users.login').execute();
  const send = (event: string, payload: unknown, opts: { deliveryId?: string; secret?: string; signature?: string | null; provider?: string } = {}) => {
    const hook = gh.hook(event, payload, { secret: opts.secret ?? SECRET, deliveryId: opts.deliveryId, signature: opts.signature });
    return t.request({ method: 'POST', url: `/hooks/forge/${opts.provider ?? 'gh'}`, headers: hook.headers, payload: hook.payload });
  };
  const orgPayload = () => ({ organization: { login: acme.login, id: acme.id }, sender: { login: 'alice', id: 101 } });

  beforeAll(async () => {
    gh = await startGithubEmulator({ pageSize: 3 });
    for (const [id, login] of [[101, 'alice'], [102, 'bob'], [103, 'carol'], [104, 'dave']] as const) gh.addUser(id, login);
    acme = gh.addOrg('acme');
    for (let i = 1; i <= 8; i++) {
      const id = gh.nextId();
      repoIds.push(id);
      acme.repos.push({ id, name: `svc-${i}`, default_branch: i === 1 ? 'trunk' : 'main', visibility: i % 2 ? 'private' : 'public', archived: false });
    }
    acme.members.set(101, 'admin').set(102, 'member').set(103, 'member');
    acme.teams.push({ id: gh.nextId(), slug: 'backend', name: 'Backend', description: 'API people', members: new Set([102, 103]), repos: new Map([[repoIds[0]!, 'push'], [repoIds[1]!, 'admin']]) });
    acme.teams.push({ id: gh.nextId(), slug: 'readers', name: 'Readers', description: null, members: new Set([103]), repos: new Map([[repoIds[2]!, 'pull'], [repoIds[3]!, 'maintain']]) });
    const providers = [
      { id: 'gh', type: 'github', name: 'GitHub', client_id: 'cid', client_secret: 'csecret', url: gh.origin, api_url: gh.apiUrl, app_id: gh.appId, private_key: gh.privateKey, webhook_secret: SECRET },
      { id: 'gl', type: 'gitlab', name: 'GitLab', client_id: 'cid', client_secret: 'csecret', url: gh.origin, api_url: `${gh.origin}/api/v4`, token: 'glpat-x', webhook_secret: 'other-secret' },
    ];
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify(providers), SERVICE_FORGE_ALLOW_PRIVATE: 'true' });
    t.app.services.forge.startWorkers(t.app.log);
    alice = await forgeSession(t, 'gh', '101', 'alice', gh.tokenFor(101));
    orgId = (await orgClient(t).createOrg(alice.cookie, 'Acme')).id;
  }, 30_000);
  afterAll(async () => {
    await t?.app.services.forge.stopWorkers();
    await t?.close();
    await gh?.close();
  });

  it('refuses linking by an owner here who is no administrator of the organisation on GitHub (403), and by an API key', async () => {
    const bob = await forgeSession(t, 'gh', '102', 'bob', gh.tokenFor(102));
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'owner');
    const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: bob.cookie }, payload: { provider: 'gh', owner: 'acme' } });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().detail).toContain('acme');
    // Without the sign-in token kept with the session there is nothing to ask GitHub with.
    const noToken = await forgeSession(t, 'gh', '101', 'alice', null);
    expect((await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: noToken.cookie }, payload: { provider: 'gh', owner: 'acme' } })).statusCode).toBe(403);
    const key = await t.apiKey(alice.cookie);
    const byKey = await t.app.inject({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { authorization: `Bearer ${key}` }, payload: { provider: 'gh', owner: 'acme' } });
    expect(byKey.statusCode).toBe(403);
    expect((await forgeGet()).statusCode).toBe(404);
    // bob goes back to being what the forge will say.
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'member');
  });

  it('links as a GitHub admin and syncs repositories, members and teams through small pages and injected rate limits', async () => {
    gh.inject('retry_after', 1, /\/orgs\/acme\/repos/);
    gh.inject('reset', 1, /\/orgs\/acme\/members/);
    gh.inject('secondary', 1, /\/teams\/backend\/repos/);
    const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie }, payload: { provider: 'gh', owner: 'acme' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ provider: 'gh', owner: 'acme' });
    const link = await waitForPass(t, orgId, alice.cookie);
    expect(link).toMatchObject({ last_error: null, counts: { repositories: 8, members: 3, teams: 2 } });
    // Pages of 3: three pages of repositories, all followed.
    expect(gh.requests.filter((r) => r.includes('/orgs/acme/repos')).length).toBeGreaterThanOrEqual(3);

    const list = await repos();
    expect(list).toHaveLength(8);
    expect(list.find((r) => r.name === 'svc-1')).toMatchObject({ forge_id: String(repoIds[0]), full_name: 'acme/svc-1', default_branch: 'trunk', visibility: 'private', archived: false, gone: false });
    expect(await memberships()).toEqual([
      expect.objectContaining({ login: 'alice', role: 'owner', source: 'forge' }),
      expect.objectContaining({ login: 'bob', role: 'member', source: 'forge' }),
      // carol never signed in: a pending user, found again by her GitHub id.
      expect.objectContaining({ login: 'carol', forge_user_id: '103', last_login_at: null, role: 'member', source: 'forge' }),
    ]);
    const teams = await t.db.kysely.selectFrom('teams').select(['id', 'name', 'source']).where('org_id', '=', orgId).orderBy('name').execute();
    expect(teams.map((x) => [x.name, x.source])).toEqual([['Backend', 'forge'], ['Readers', 'forge']]);
    const grants = await t.db.kysely.selectFrom('team_repositories').innerJoin('repos', 'repos.id', 'team_repositories.repository_id')
      .innerJoin('teams', 'teams.id', 'team_repositories.team_id').select(['teams.name as team', 'repos.name as repo', 'team_repositories.role']).where('teams.org_id', '=', orgId).orderBy('repos.name').execute();
    expect(grants).toEqual([
      { team: 'Backend', repo: 'svc-1', role: 'triage' },
      { team: 'Backend', repo: 'svc-2', role: 'admin' },
      { team: 'Readers', repo: 'svc-3', role: 'read' },
      { team: 'Readers', repo: 'svc-4', role: 'triage' },
    ]);
  });

  it('refuses editing or deleting a forge team locally with 409 saying it follows the forge', async () => {
    const team = await t.db.kysely.selectFrom('teams').select('id').where('org_id', '=', orgId).where('name', '=', 'Backend').executeTakeFirstOrThrow();
    const edit = await t.request({ method: 'PUT', url: `/api/v1/teams/${team.id}`, headers: { cookie: alice.cookie }, payload: { name: 'Renamed' } });
    expect(edit.statusCode, edit.body).toBe(409);
    expect(edit.json().detail).toContain('follows the forge');
    expect((await t.request({ method: 'DELETE', url: `/api/v1/teams/${team.id}`, headers: { cookie: alice.cookie } })).statusCode).toBe(409);
  });

  it('makes a pending member active at first sign-in as the same user, with no owner step', async () => {
    const before = await t.db.kysely.selectFrom('users').select('id').where('provider_id', '=', 'gh').where('forge_user_id', '=', '103').executeTakeFirstOrThrow();
    const carol = await t.app.services.users.upsertForgeUser({ providerId: 'gh', forgeUserId: '103', login: 'carol', name: 'Carol', email: null, avatarUrl: null });
    expect(carol.id).toBe(before.id);
    expect(carol.last_login_at).not.toBeNull();
    const cookie = (await forgeSession(t, 'gh', '103', 'carol', null)).cookie;
    expect((await t.request({ url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie } })).statusCode).toBe(200);
  });

  it('follows a rename by forge id, keeps the same repository, and refuses uploads to an archived one with 409', async () => {
    const svc5 = (await repos()).find((r) => r.name === 'svc-5')!;
    acme.repos.find((r) => r.id === repoIds[4])!.name = 'payments-api';
    expect((await send('repository', { action: 'renamed', changes: { repository: { name: { from: 'svc-5' } } }, repository: { id: repoIds[4], name: 'payments-api', full_name: 'acme/payments-api' }, ...orgPayload() })).statusCode).toBe(202);
    await eventually(async () => expect((await repos()).find((r) => r.id === svc5.id)).toMatchObject({ name: 'payments-api', full_name: 'acme/payments-api' }));

    acme.repos.find((r) => r.id === repoIds[5])!.archived = true;
    await send('repository', { action: 'archived', repository: { id: repoIds[5], name: 'svc-6' }, ...orgPayload() });
    const svc6 = await eventually(async () => {
      const found = (await repos()).find((r) => r.name === 'svc-6')!;
      expect(found.archived).toBe(true);
      return found;
    });
    const upload = await t.request({ method: 'POST', url: `/api/v1/repos/${svc6.id}/upload`, headers: { cookie: alice.cookie, 'content-type': 'application/json' }, payload: sarifLog([]) });
    expect(upload.statusCode, upload.body).toBe(409);
    expect(upload.json().detail).toContain('archived');
  });

  it('marks a repository deleted on GitHub as gone, and adds one the app was given (installation_repositories)', async () => {
    const deleted = acme.repos.splice(6, 1)[0]!;
    await send('repository', { action: 'deleted', repository: { id: deleted.id, name: deleted.name }, ...orgPayload() });
    await eventually(async () => expect((await repos()).find((r) => r.name === deleted.name)).toMatchObject({ gone: true }));

    acme.repos.push({ id: gh.nextId(), name: 'fresh', default_branch: 'main', visibility: 'internal', archived: false });
    await send('installation_repositories', { action: 'added', installation: { id: acme.installationId, account: { login: 'acme' } }, repositories_added: [{ name: 'fresh' }] });
    await eventually(async () => expect((await repos()).find((r) => r.name === 'fresh')).toMatchObject({ visibility: 'internal' }));
  });

  it('applies organization member_added / member_removed and membership within seconds', async () => {
    acme.members.set(104, 'member');
    await send('organization', { action: 'member_added', membership: { user: { id: 104, login: 'dave' }, role: 'member', state: 'active' }, ...orgPayload() });
    await eventually(async () => expect((await memberships()).map((m) => m.login)).toContain('dave'));

    acme.members.delete(102);
    for (const team of acme.teams) team.members.delete(102);
    await send('organization', { action: 'member_removed', membership: { user: { id: 102, login: 'bob' }, role: 'member', state: 'active' }, ...orgPayload() });
    await eventually(async () => expect((await memberships()).map((m) => m.login)).not.toContain('bob'));
    const bobTeams = await t.db.kysely.selectFrom('team_members').innerJoin('users', 'users.id', 'team_members.user_id').select('users.login').where('users.login', '=', 'bob').execute();
    expect(bobTeams).toEqual([]);

    acme.teams[1]!.members.add(104);
    await send('membership', { action: 'added', scope: 'team', member: { id: 104, login: 'dave' }, team: { id: acme.teams[1]!.id, slug: 'readers' }, ...orgPayload() });
    await eventually(async () => {
      const readers = await t.db.kysely.selectFrom('team_members').innerJoin('teams', 'teams.id', 'team_members.team_id').innerJoin('users', 'users.id', 'team_members.user_id')
        .select('users.login').where('teams.name', '=', 'Readers').where('teams.org_id', '=', orgId).execute();
      expect(readers.map((r) => r.login).sort()).toEqual(['carol', 'dave']);
    });
  });

  it('applies team and team_add within seconds', async () => {
    acme.teams.push({ id: gh.nextId(), slug: 'ops', name: 'Ops', description: null, members: new Set([101]), repos: new Map() });
    await send('team', { action: 'created', team: { id: acme.teams.at(-1)!.id, slug: 'ops', name: 'Ops' }, ...orgPayload() });
    await eventually(async () => expect((await t.db.kysely.selectFrom('teams').select('name').where('org_id', '=', orgId).execute()).map((x) => x.name)).toContain('Ops'));

    acme.teams.at(-1)!.repos.set(repoIds[7]!, 'admin');
    await send('team_add', { team: { id: acme.teams.at(-1)!.id, slug: 'ops' }, repository: { id: repoIds[7], name: 'svc-8' }, ...orgPayload() });
    await eventually(async () => {
      const grant = await t.db.kysely.selectFrom('team_repositories').innerJoin('teams', 'teams.id', 'team_repositories.team_id').select('role').where('teams.name', '=', 'Ops').where('teams.org_id', '=', orgId).execute();
      expect(grant).toEqual([{ role: 'admin' }]);
    });
  });

  it('refuses forged deliveries with 401 (bad signature, another secret, none, wrong provider) and queues nothing', async () => {
    const count = async () => Number((await t.db.kysely.selectFrom('forge_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const payload = { action: 'member_removed', membership: { user: { id: 101, login: 'alice' } }, ...orgPayload() };
    for (const opts of [{ signature: 'sha256=00' + 'ab'.repeat(31) }, { secret: 'another-secret' }, { signature: null }, { provider: 'gl' }, { provider: 'nope' }]) {
      const res = await send('organization', payload, opts);
      expect(res.statusCode, JSON.stringify(opts)).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    expect(await count()).toBe(before);
    expect((await memberships()).map((m) => m.login)).toContain('alice');
  });

  it('acknowledges a redelivered delivery id without applying it again', async () => {
    acme.repos.find((r) => r.name === 'svc-8')!.default_branch = 'develop';
    const first = await send('repository', { action: 'edited', repository: { id: repoIds[7], name: 'svc-8' }, ...orgPayload() }, { deliveryId: 'fixed-delivery-1' });
    expect(first.json()).toEqual({ status: 'queued' });
    await eventually(async () => expect((await repos()).find((r) => r.name === 'svc-8')!.default_branch).toBe('develop'));
    const events = await t.db.kysely.selectFrom('forge_events').select('id').execute();
    const replay = await send('repository', { action: 'edited', repository: { id: repoIds[7], name: 'svc-8' }, ...orgPayload() }, { deliveryId: 'fixed-delivery-1' });
    expect(replay.statusCode).toBe(202);
    expect(replay.json()).toEqual({ status: 'duplicate' });
    expect(await t.db.kysely.selectFrom('forge_events').select('id').execute()).toHaveLength(events.length);
    const link = await t.db.kysely.selectFrom('forge_links').select(['sync_due_at', 'sync_parts']).where('org_id', '=', orgId).executeTakeFirstOrThrow();
    expect(link).toEqual({ sync_due_at: null, sync_parts: null });
  });

  it('reaches a repository by its forge full name before any pass saw it, and answers 404 naming one GitHub does not know', async () => {
    acme.repos.push({ id: gh.nextId(), name: 'just-made', default_branch: 'main', visibility: 'private', archived: false });
    const upload = (repo: string) => t.request({
      method: 'POST', url: `/api/v1/orgs/${orgId}/upload?repo=${encodeURIComponent(repo)}`, headers: { cookie: alice.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([]),
    });
    const res = await upload('acme/just-made');
    expect(res.statusCode, res.body).toBe(202);
    expect((await repos()).find((r) => r.name === 'just-made')).toMatchObject({ full_name: 'acme/just-made', forge_id: String(acme.repos.at(-1)!.id) });
    // The same name again reaches the same repository.
    expect((await upload('ACME/just-made')).statusCode).toBe(202);
    expect((await repos()).filter((r) => r.name === 'just-made')).toHaveLength(1);

    const count = (await repos()).length;
    const missing = await upload('acme/no-such-repo');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toContain('acme/no-such-repo');
    expect((await upload('other-org/just-made')).statusCode).toBe(404);
    expect((await repos()).length).toBe(count);
  });

  it('stops cleanly when GitHub fails, keeping the previous state and recording the error; sync now is 202', async () => {
    const before = await repos();
    const previous = (await forgeGet()).json<{ last_synced_at: string }>().last_synced_at;
    acme.repos.splice(0, 2);
    gh.inject('error', 1, /\/orgs\/acme\/members/);
    const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/forge/sync`, headers: { cookie: alice.cookie } });
    expect(res.statusCode).toBe(202);
    const link = await eventually(async () => {
      const l = (await forgeGet()).json<{ last_error: string | null; last_synced_at: string }>();
      expect(l.last_error).toContain('502');
      return l;
    }, 20_000);
    expect(link.last_synced_at).toBe(previous);
    expect(await repos()).toEqual(before);
  });

  it('unlinks, keeping what was synced as local data', async () => {
    const before = await repos();
    expect((await t.request({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie } })).statusCode).toBe(204);
    expect((await forgeGet()).statusCode).toBe(404);
    expect((await repos()).length).toBe(before.length);
    expect((await memberships()).length).toBeGreaterThan(0);
  });
});
