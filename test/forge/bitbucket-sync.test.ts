import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';
import { startBitbucketEmulator, type BbWorkspace, type BitbucketEmulator } from '../support/forge-emulator/bitbucket.js';
import { eventually, forgeSession, waitForPass } from './helpers.js';

const SECRET = 'bb-webhook-secret-value';

// Repositories and members of a Bitbucket Cloud workspace (no teams: Bitbucket has none in API 2.0).
describe.each(DB_KINDS)('an organisation following a Bitbucket workspace (%s)', (kind) => {
  let bb: BitbucketEmulator;
  let t: TestApp;
  let ws: BbWorkspace;
  let orgId: string;
  let alice: { cookie: string };
  const people: Record<string, string> = {};

  const repos = async () => (await t.request({ url: `/api/v1/orgs/${orgId}/repos?per_page=100`, headers: { cookie: alice.cookie } }))
    .json<{ id: string; name: string; forge_id: string | null; full_name: string | null; visibility: string | null; default_branch: string | null; gone: boolean }[]>();
  const memberships = () => t.db.kysely.selectFrom('memberships').innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.login', 'users.forge_user_id', 'memberships.role', 'memberships.source']).where('org_id', '=', orgId).orderBy('users.login').execute();
  const eventCount = async () => Number((await t.db.kysely.selectFrom('forge_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const send = (event: string, payload: unknown, opts: { secret?: string | null; requestUuid?: string; attempt?: number; provider?: string; signature?: string } = {}) => {
    const hook = bb.hook(event, payload, { secret: opts.secret === undefined ? SECRET : opts.secret, requestUuid: opts.requestUuid, attempt: opts.attempt });
    if (opts.signature !== undefined) hook.headers['x-hub-signature'] = opts.signature;
    return t.request({ method: 'POST', url: `/hooks/forge/${opts.provider ?? 'bb'}`, headers: hook.headers, payload: hook.payload });
  };
  // The "repository" of a repo:* event payload (Bitbucket Cloud "Event payloads", Repository events).
  const repoEvent = (slug: string) => {
    const repo = ws.repos.find((r) => r.slug === slug);
    return { repository: repo ? bb.repoJson(ws, repo) : { type: 'repository', full_name: `codeworks/${slug}`, workspace: { slug: 'codeworks' } }, actor: { type: 'user', uuid: people.alice } };
  };

  beforeAll(async () => {
    bb = await startBitbucketEmulator({ pageSize: 2 });
    for (const name of ['alice', 'bob', 'carol', 'dave']) people[name] = bb.addUser(name);
    ws = bb.addWorkspace('codeworks');
    for (const slug of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) ws.repos.push({ uuid: bb.newUuid(), slug, mainbranch: slug === 'alpha' ? 'trunk' : 'main', is_private: slug !== 'alpha' });
    ws.members.set(people.alice!, 'owner').set(people.bob!, 'member').set(people.carol!, 'collaborator');
    const providers = [
      { id: 'bb', type: 'bitbucket', name: 'Bitbucket', client_id: 'c', client_secret: 's', url: bb.url, api_url: bb.apiUrl, token: bb.botToken, webhook_secret: SECRET },
      { id: 'other', type: 'bitbucket', name: 'Other Bitbucket', client_id: 'c', client_secret: 's', url: bb.url, api_url: bb.apiUrl, token: bb.botToken, webhook_secret: 'other-secret' },
    ];
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify(providers), SERVICE_FORGE_ALLOW_PRIVATE: 'true' });
    t.app.services.forge.startWorkers(t.app.log);
    alice = await forgeSession(t, 'bb', people.alice!, 'alice', bb.tokenFor(people.alice!));
    orgId = (await orgClient(t).createOrg(alice.cookie, 'Codeworks')).id;
  }, 30_000);
  afterAll(async () => {
    await t?.app.services.forge.stopWorkers();
    await t?.close();
    await bb?.close();
  });

  it('refuses linking by a workspace member who is no owner (403), links as an owner and syncs repositories and members at pages of 2 through a 429', async () => {
    const bob = await forgeSession(t, 'bb', people.bob!, 'bob', bb.tokenFor(people.bob!));
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'owner');
    const refused = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: bob.cookie }, payload: { provider: 'bb', owner: 'codeworks' } });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().detail).toContain('codeworks');
    await orgClient(t).setMember(alice.cookie, orgId, bob.user.id, 'member');

    bb.inject('retry_after', 1, /\/repositories\/codeworks$/);
    const res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie }, payload: { provider: 'bb', owner: 'codeworks' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(bb.requests.some((r) => r.startsWith('GET /api/2.0/user/permissions/workspaces?q=workspace.slug%3D%22codeworks%22'))).toBe(true);
    expect(await waitForPass(t, orgId, alice.cookie)).toMatchObject({ last_error: null, counts: { repositories: 5, members: 3, teams: 0 } });
    // Five repositories at pages of two: three pages, each followed by its `next`.
    expect(bb.requests.filter((r) => r.startsWith('GET /api/2.0/repositories/codeworks?') && r.includes('page=3'))).not.toHaveLength(0);

    const list = await repos();
    expect(list.find((r) => r.name === 'alpha')).toMatchObject({ forge_id: ws.repos[0]!.uuid, full_name: 'codeworks/alpha', default_branch: 'trunk', visibility: 'public', gone: false });
    expect(list.find((r) => r.name === 'beta')).toMatchObject({ visibility: 'private' });
    expect(await memberships()).toEqual([
      { login: 'alice', forge_user_id: people.alice, role: 'owner', source: 'forge' },
      { login: 'bob', forge_user_id: people.bob, role: 'member', source: 'forge' },
      // carol never signed in (pending); a collaborator is a member here.
      { login: 'carol', forge_user_id: people.carol, role: 'member', source: 'forge' },
    ]);
  });

  it('applies repo:created, repo:updated (a rename follows the uuid) and repo:deleted within seconds', async () => {
    ws.repos.push({ uuid: bb.newUuid(), slug: 'zeta', mainbranch: 'main', is_private: true });
    expect((await send('repo:created', repoEvent('zeta'))).statusCode).toBe(202);
    await eventually(async () => expect((await repos()).map((r) => r.name)).toContain('zeta'));

    const beta = (await repos()).find((r) => r.name === 'beta')!;
    ws.repos.find((r) => r.slug === 'beta')!.slug = 'payments-api';
    expect((await send('repo:updated', { ...repoEvent('payments-api'), changes: { full_name: { new: 'codeworks/payments-api', old: 'codeworks/beta' } } })).statusCode).toBe(202);
    await eventually(async () => expect((await repos()).find((r) => r.id === beta.id)).toMatchObject({ name: 'payments-api', full_name: 'codeworks/payments-api', forge_id: beta.forge_id }));

    const gamma = ws.repos.findIndex((r) => r.slug === 'gamma');
    ws.repos.splice(gamma, 1);
    expect((await send('repo:deleted', repoEvent('gamma'))).statusCode).toBe(202);
    await eventually(async () => expect((await repos()).find((r) => r.name === 'gamma')).toMatchObject({ gone: true }));
  });

  it('refuses forged deliveries with 401 (bad signature, another secret, none, wrong provider) and changes nothing', async () => {
    const before = { events: await eventCount(), repos: await repos() };
    ws.repos.push({ uuid: bb.newUuid(), slug: 'forged', mainbranch: 'main', is_private: true });
    for (const opts of [{ signature: `sha256=${'ab'.repeat(32)}` }, { signature: 'sha1=00' }, { secret: 'another-secret' }, { secret: null }, { provider: 'other' }, { provider: 'nope' }]) {
      const res = await send('repo:created', repoEvent('forged'), opts);
      expect(res.statusCode, JSON.stringify(opts)).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    expect(await eventCount()).toBe(before.events);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await repos()).toEqual(before.repos);
    ws.repos.pop();
  });

  it('acknowledges Bitbucket\'s retry of a request (the same X-Request-UUID, attempt 2) without applying it again', async () => {
    const first = await send('repo:updated', repoEvent('delta'), { requestUuid: '6e0b6a3c-5f7a-4d2e-9b1c-2f4e8a9d0c11' });
    expect(first.json()).toEqual({ status: 'queued' });
    await eventually(async () => {
      const event = await t.db.kysely.selectFrom('forge_events').select('status').where('delivery_id', '=', '6e0b6a3c-5f7a-4d2e-9b1c-2f4e8a9d0c11').executeTakeFirstOrThrow();
      const link = await t.db.kysely.selectFrom('forge_links').select('sync_due_at').where('org_id', '=', orgId).executeTakeFirstOrThrow();
      expect([event.status, link.sync_due_at]).toEqual(['applied', null]);
    });
    const events = await eventCount();
    const retry = await send('repo:updated', repoEvent('delta'), { requestUuid: '6e0b6a3c-5f7a-4d2e-9b1c-2f4e8a9d0c11', attempt: 2 });
    expect(retry.statusCode).toBe(202);
    expect(retry.json()).toEqual({ status: 'duplicate' });
    expect(await eventCount()).toBe(events);
    const link = await t.db.kysely.selectFrom('forge_links').select(['sync_due_at', 'sync_parts']).where('org_id', '=', orgId).executeTakeFirstOrThrow();
    expect(link).toEqual({ sync_due_at: null, sync_parts: null });
  });

  it('reaches a repository by its full name before any pass saw it, and answers 404 for one the workspace does not have', async () => {
    ws.repos.push({ uuid: bb.newUuid(), slug: 'just-made', mainbranch: 'main', is_private: true });
    const upload = (repo: string) => t.request({
      method: 'POST', url: `/api/v1/orgs/${orgId}/upload?repo=${encodeURIComponent(repo)}`, headers: { cookie: alice.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([]),
    });
    expect((await upload('codeworks/just-made')).statusCode).toBe(202);
    expect((await repos()).find((r) => r.name === 'just-made')).toMatchObject({ forge_id: ws.repos.at(-1)!.uuid, full_name: 'codeworks/just-made' });
    const count = (await repos()).length;
    const missing = await upload('codeworks/no-such-repo');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().detail).toContain('codeworks/no-such-repo');
    expect((await repos()).length).toBe(count);
  });

  it('takes away membership of someone removed from the workspace, and adds a new member, at the next pass', async () => {
    ws.members.delete(people.bob!);
    ws.members.set(people.dave!, 'owner');
    const before = (await t.request({ url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie: alice.cookie } })).json<{ last_synced_at: string }>().last_synced_at;
    const asked = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/forge/sync`, headers: { cookie: alice.cookie } });
    expect(asked.statusCode).toBe(202);
    expect(asked.json()).toMatchObject({ syncing: true });
    expect(await waitForPass(t, orgId, alice.cookie, before)).toMatchObject({ syncing: false });
    expect((await memberships()).map((m) => [m.login, m.role])).toEqual([['alice', 'owner'], ['carol', 'member'], ['dave', 'owner']]);
  });
});
