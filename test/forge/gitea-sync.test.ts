import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { orgClient } from '../support/orgs.js';
import { startGiteaEmulator, type GiteaEmulator, type GtOrg } from '../support/forge-emulator/gitea.js';
import { eventually, forgeSession, waitForPass } from './helpers.js';

const SECRET = 'gitea-hook-secret';

// Repositories and members (and teams) of a Forgejo organisation; Gitea is the same client and API.
describe('an organisation following a Forgejo organisation', () => {
  let fj: GiteaEmulator;
  let t: TestApp;
  let org: GtOrg;
  let orgId: string;
  let alice: { cookie: string };
  const repos = async () => (await t.request({ url: `/api/v1/orgs/${orgId}/repos?per_page=100`, headers: { cookie: alice.cookie } })).json<{ name: string; full_name: string | null; gone: boolean }[]>();
  const send = (event: string, payload: unknown, opts: { secret?: string; deliveryId?: string } = {}) => {
    const hook = fj.hook('forgejo', event, payload, { secret: opts.secret ?? SECRET, deliveryId: opts.deliveryId });
    return t.request({ method: 'POST', url: '/hooks/forge/fj', headers: hook.headers, payload: hook.payload });
  };

  beforeAll(async () => {
    fj = await startGiteaEmulator({ pageSize: 2 });
    for (const [id, login] of [[301, 'alice'], [302, 'bob'], [303, 'carol']] as const) fj.users.set(id, login);
    org = fj.addOrg('codeworks');
    for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) org.repos.push({ id: fj.nextId(), name, default_branch: 'main', private: name !== 'alpha', archived: false });
    org.members = new Set([301, 302, 303]);
    org.teams.push({ id: fj.nextId(), name: 'Owners', permission: 'owner', members: new Set([301]), repos: new Set() });
    org.teams.push({ id: fj.nextId(), name: 'devs', permission: 'write', members: new Set([302, 303]), repos: new Set([org.repos[1]!.id]) });
    const providers = [{ id: 'fj', type: 'forgejo', name: 'Codeberg', client_id: 'c', client_secret: 's', url: fj.origin, api_url: fj.apiUrl, token: fj.botToken, webhook_secret: SECRET }];
    t = await createTestApp('sqlite', { SERVICE_PROVIDERS: JSON.stringify(providers), SERVICE_FORGE_ALLOW_PRIVATE: 'true' });
    t.app.services.forge.startWorkers(t.app.log);
    alice = await forgeSession(t, 'fj', '301', 'alice', fj.tokenFor(301));
    orgId = (await orgClient(t).createOrg(alice.cookie, 'Codeworks')).id;
  }, 30_000);
  afterAll(async () => {
    await t?.app.services.forge.stopWorkers();
    await t?.close();
    await fj?.close();
  });

  it('refuses a member who is not in the Owners team (403), links an owner and syncs repositories, members and teams', async () => {
    const bob = await forgeSession(t, 'fj', '302', 'bob', fj.tokenFor(302));
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'owner');
    expect((await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: bob.cookie }, payload: { provider: 'fj', owner: 'codeworks' } })).statusCode).toBe(403);

    const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie }, payload: { provider: 'fj', owner: 'codeworks' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await waitForPass(t, orgId, alice.cookie)).toMatchObject({ last_error: null, counts: { repositories: 5, members: 3, teams: 1 } });
    expect((await repos()).map((r) => r.full_name).sort()).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma'].map((n) => `codeworks/${n}`));
    const roles = await t.db.kysely.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id').select(['users.login', 'memberships.role']).where('org_id', '=', orgId).orderBy('users.login').execute();
    expect(roles).toEqual([{ login: 'alice', role: 'owner' }, { login: 'bob', role: 'member' }, { login: 'carol', role: 'member' }]);
  });

  it('applies a signed repository webhook within seconds and refuses one signed with another secret', async () => {
    org.repos.splice(0, 1);
    expect((await send('repository', { action: 'deleted', repository: { id: 1, name: 'alpha', owner: { login: 'codeworks' } }, organization: { username: 'codeworks' } }, { secret: 'wrong' })).statusCode).toBe(401);
    expect((await send('repository', { action: 'deleted', repository: { id: 1, name: 'alpha', owner: { login: 'codeworks' } }, organization: { username: 'codeworks' } })).statusCode).toBe(202);
    await eventually(async () => expect((await repos()).find((r) => r.full_name === 'codeworks/alpha')).toMatchObject({ gone: true }));
  });
});
