import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient, type Org, type Repo, type Team } from '../support/orgs.js';

/** An OSV record as osv.dev publishes it (schema 1.6): GHSA-35jh-r3h4-6jhm, lodash before 4.17.21. */
const LODASH_ADVISORY = {
  schema_version: '1.6.0', id: 'GHSA-35jh-r3h4-6jhm', modified: '2024-01-01T00:00:00Z', published: '2021-02-15T00:00:00Z',
  aliases: ['CVE-2021-23337'], summary: 'Command Injection in lodash',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }],
  affected: [{ package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }] }],
};

/** A CycloneDX 1.6 SBOM (the specification's JSON example shape) naming lodash 4.17.20. */
const SBOM = JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
  metadata: { tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] } },
  components: [{ type: 'library', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20', 'bom-ref': 'pkg:npm/lodash@4.17.20' }],
});

/**
 * Teams holding repositories, and the org's base_role: with "none", a member reads only what their
 * teams hold, in every read, list, count and search; the role held decides triage and administration.
 */
describe.each(DB_KINDS)('teams holding repositories on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string; user: { id: string } };
  let alice: { cookie: string; user: { id: string } };
  let bob: { cookie: string; user: { id: string } };
  let org: Org;
  let a: Repo;
  let b: Repo;
  let team: Team;
  let findingOfA: string;
  let findingOfB: string;

  const as = (who: { cookie: string }, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url, headers: { cookie: who.cookie }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const upload = async (who: { cookie: string }, repoId: string) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie: who.cookie, 'content-type': 'application/octet-stream' }, payload: SBOM });
    await t.drain();
    return res.statusCode;
  };
  const grant = async (role: string, repoId = a.id) => {
    const res = await as(owner, 'PUT', `/api/v1/teams/${team.id}/repos/${repoId}`, { role });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const repoNames = async (who: { cookie: string }) => {
    const res = await as(who, 'GET', `/api/v1/orgs/${org.id}/repos?per_page=100`);
    expect(res.statusCode, res.body).toBe(200);
    return { names: res.json<Repo[]>().map((r) => r.name), total: res.headers['x-total-count'] };
  };
  const repoCount = async (who: { cookie: string }) => ({
    one: (await as(who, 'GET', `/api/v1/orgs/${org.id}`)).json<Org>().repo_count,
    listed: (await as(who, 'GET', '/api/v1/orgs?per_page=100')).json<Org[]>().find((o) => o.id === org.id)?.repo_count,
  });
  const componentRepos = async (who: { cookie: string }) =>
    (await as(who, 'GET', '/api/v1/components?purl=pkg:npm/lodash&per_page=100')).json<{ repository: { name: string } }[]>()
      .map((c) => c.repository.name).sort();
  const advisoryRepos = async (who: { cookie: string }) =>
    (await as(who, 'GET', '/api/v1/advisories/GHSA-35jh-r3h4-6jhm')).json<{ repositories: { name: string }[] }>().repositories.map((r) => r.name).sort();
  const topCount = async (who: { cookie: string }) =>
    (await as(who, 'GET', '/api/v1/advisories/top')).json<{ id: string; repositories: number }[]>().find((x) => x.id === LODASH_ADVISORY.id)?.repositories ?? 0;
  /** Every read of one repository a reader may make, and what each answered. */
  const reads = async (who: { cookie: string }, repo: Repo, finding: string) => {
    const urls = [
      `/api/v1/repos/${repo.id}`, `/api/v1/repos/${repo.id}/status`, `/api/v1/repos/${repo.id}/findings`, `/api/v1/repos/${repo.id}/findings?group=vulnerability`,
      `/api/v1/repos/${repo.id}/components`, `/api/v1/repos/${repo.id}/uploads`, `/api/v1/repos/${repo.id}/refs`, `/api/v1/repos/${repo.id}/analyses`,
      `/api/v1/repos/${repo.id}/gate`, `/api/v1/repos/${repo.id}/policy`, `/api/v1/repos/${repo.id}/vex?format=openvex`,
      `/api/v1/repos/lookup?org=${encodeURIComponent(org.name)}&name=${repo.name}`, `/api/v1/findings/${finding}`, `/api/v1/findings/${finding}/history`,
    ];
    return new Set(await Promise.all(urls.map(async (url) => (await as(who, 'GET', url)).statusCode)));
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    const api = orgClient(t);
    const admin = await t.user('admin', { admin: true });
    owner = await t.user('owner');
    alice = await t.user('alice');
    bob = await t.user('bob');
    const imported = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/json' }, payload: JSON.stringify(LODASH_ADVISORY) });
    expect(imported.statusCode, imported.body).toBe(200);
    org = await api.createOrg(owner.cookie, 'acme');
    for (const member of [alice, bob]) await api.setMember(owner.cookie, org.id, member.user.id, 'member');
    a = await api.createRepo(owner.cookie, org.id, { name: 'payments' });
    b = await api.createRepo(owner.cookie, org.id, { name: 'ledger' });
    expect(await upload(owner, a.id)).toBe(202);
    expect(await upload(owner, b.id)).toBe(202);
    findingOfA = (await as(owner, 'GET', `/api/v1/repos/${a.id}/findings`)).json<{ id: string }[]>()[0]!.id;
    findingOfB = (await as(owner, 'GET', `/api/v1/repos/${b.id}/findings`)).json<{ id: string }[]>()[0]!.id;
    team = await api.createTeam(owner.cookie, org.id, { name: 'payments-team', members: [alice.user.id] });
  });
  afterAll(() => t.close());

  it('keeps today\'s rights with base_role "read" (the default): every member reads, uploads and triages every repository, and administers none', async () => {
    expect((await as(owner, 'GET', `/api/v1/orgs/${org.id}`)).json()).toMatchObject({ base_role: 'read', repo_count: 2 });
    expect(await repoNames(bob)).toEqual({ names: ['payments', 'ledger'], total: '2' });
    expect(await reads(bob, b, findingOfB)).toEqual(new Set([200]));
    expect(await componentRepos(bob)).toEqual(['ledger', 'payments']);
    const triaged = await as(bob, 'PATCH', `/api/v1/findings/${findingOfB}`, { state: 'dismissed', reason: 'wont_fix' });
    expect(triaged.statusCode, triaged.body).toBe(200);
    expect((await as(bob, 'PATCH', `/api/v1/findings/${findingOfB}`, { state: 'open' })).statusCode).toBe(200);
    expect((await as(bob, 'PUT', `/api/v1/repos/${b.id}/policy`, { inherit: true })).statusCode).toBe(403);
    expect((await as(bob, 'POST', `/api/v1/repos/${b.id}/badge-token`)).statusCode).toBe(403);
  });

  it('refuses a base_role other than "read" or "none", and only owners set it', async () => {
    expect((await as(owner, 'PUT', `/api/v1/orgs/${org.id}`, { base_role: 'write' })).statusCode).toBe(400);
    expect((await as(bob, 'PUT', `/api/v1/orgs/${org.id}`, { base_role: 'none' })).statusCode).toBe(403);
    const set = await as(owner, 'PUT', `/api/v1/orgs/${org.id}`, { base_role: 'none' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ base_role: 'none' });
    const audit = (await as(owner, 'GET', `/api/v1/orgs/${org.id}/audit?action=org.updated`)).json<{ details: unknown }[]>();
    expect(audit[0]!.details).toEqual({ base_role: 'none' });
  });

  it('with base_role "none", hides every repository of the org from a member without a team: 404, empty lists, zero counts, nothing in searches', async () => {
    expect(await reads(bob, a, findingOfA)).toEqual(new Set([404]));
    expect(await reads(bob, b, findingOfB)).toEqual(new Set([404]));
    // As a repository that does not exist, word for word.
    const missing = await as(owner, 'GET', '/api/v1/repos/0190a3b2-0000-7000-8000-000000000000');
    expect((await as(bob, 'GET', `/api/v1/repos/${a.id}`)).json()).toEqual(missing.json());
    expect(await repoNames(bob)).toEqual({ names: [], total: '0' });
    expect(await repoCount(bob)).toEqual({ one: 0, listed: 0 });
    expect(await componentRepos(bob)).toEqual([]);
    expect(await advisoryRepos(bob)).toEqual([]);
    expect(await topCount(bob)).toBe(0);
    expect(await upload(bob, a.id)).toBe(404);
    expect((await as(bob, 'PATCH', `/api/v1/findings/${findingOfA}`, { state: 'dismissed', reason: 'wont_fix' })).statusCode).toBe(404);
    // The org itself, its teams and members stay visible to its members.
    expect((await as(bob, 'GET', `/api/v1/orgs/${org.id}`)).statusCode).toBe(200);
    expect((await as(bob, 'GET', `/api/v1/orgs/${org.id}/teams`)).statusCode).toBe(200);
    // Owners see everything.
    expect(await repoNames(owner)).toEqual({ names: ['payments', 'ledger'], total: '2' });
    expect(await repoCount(owner)).toEqual({ one: 2, listed: 2 });
    expect(await componentRepos(owner)).toEqual(['ledger', 'payments']);
    expect(await topCount(owner)).toBe(2);
  });

  it('shows a member exactly the repository their team is given read on, and that role lets them upload but not triage', async () => {
    expect(await repoNames(alice)).toEqual({ names: [], total: '0' });
    expect(await grant('read')).toEqual({ repository_id: a.id, name: 'payments', full_name: null, role: 'read' });
    expect(await repoNames(alice)).toEqual({ names: ['payments'], total: '1' });
    expect(await repoCount(alice)).toEqual({ one: 1, listed: 1 });
    expect(await reads(alice, a, findingOfA)).toEqual(new Set([200]));
    expect(await reads(alice, b, findingOfB)).toEqual(new Set([404]));
    expect(await componentRepos(alice)).toEqual(['payments']);
    expect(await advisoryRepos(alice)).toEqual(['payments']);
    expect(await topCount(alice)).toBe(1);
    expect(await upload(alice, a.id)).toBe(202);
    const triage = await as(alice, 'PATCH', `/api/v1/findings/${findingOfA}`, { state: 'dismissed', reason: 'wont_fix' });
    expect(triage.statusCode).toBe(403);
    expect(triage.json().detail).toMatch(/"triage" role/);
    expect((await as(alice, 'POST', `/api/v1/repos/${a.id}/findings/triage`, { ids: [findingOfA], triage: { state: 'dismissed', reason: 'wont_fix' } })).statusCode).toBe(403);
    // Bob, in no team, still sees none.
    expect(await repoNames(bob)).toEqual({ names: [], total: '0' });
  });

  it('lets "triage" dismiss and reopen, and "admin" also set the policy, rotate the badge token and delete analyses; deleting the repository stays the owners\'', async () => {
    await grant('triage');
    expect((await as(alice, 'PATCH', `/api/v1/findings/${findingOfA}`, { state: 'dismissed', reason: 'wont_fix' })).statusCode).toBe(200);
    expect((await as(alice, 'PATCH', `/api/v1/findings/${findingOfA}`, { state: 'open' })).statusCode).toBe(200);
    expect((await as(alice, 'PUT', `/api/v1/repos/${a.id}/policy`, { inherit: true })).statusCode).toBe(403);
    expect((await as(alice, 'POST', `/api/v1/repos/${a.id}/badge-token`)).statusCode).toBe(403);
    const analysis = (await as(owner, 'GET', `/api/v1/repos/${a.id}/analyses`)).json<{ id: string }[]>()[0]!.id;
    expect((await as(alice, 'DELETE', `/api/v1/repos/${a.id}/analyses/${analysis}`)).statusCode).toBe(403);

    await grant('admin');
    expect((await as(alice, 'PUT', `/api/v1/repos/${a.id}/policy`, { inherit: true })).statusCode).toBe(200);
    expect((await as(alice, 'POST', `/api/v1/repos/${a.id}/badge-token`)).statusCode).toBe(201);
    expect((await as(alice, 'DELETE', `/api/v1/repos/${a.id}/analyses/${analysis}`)).statusCode).toBe(204);
    // Uploaded again (its findings went with the analysis): the tests below triage one.
    expect(await upload(alice, a.id)).toBe(202);
    findingOfA = (await as(owner, 'GET', `/api/v1/repos/${a.id}/findings`)).json<{ id: string }[]>()[0]!.id;
    expect((await as(alice, 'DELETE', `/api/v1/repos/${a.id}`)).statusCode).toBe(403);
    // Not the other repository.
    expect((await as(alice, 'PUT', `/api/v1/repos/${b.id}/policy`, { inherit: true })).statusCode).toBe(404);
  });

  it('takes the role back: the repository is hidden again; and the best of several teams\' roles counts', async () => {
    const other = await orgClient(t).createTeam(owner.cookie, org.id, { name: 'readers', members: [alice.user.id] });
    expect((await as(owner, 'PUT', `/api/v1/teams/${other.id}/repos/${a.id}`, { role: 'read' })).statusCode).toBe(200);
    await grant('triage');
    expect((await as(alice, 'PATCH', `/api/v1/findings/${findingOfA}`, { state: 'open' })).statusCode).toBe(200);
    expect((await as(owner, 'DELETE', `/api/v1/teams/${team.id}/repos/${a.id}`)).statusCode).toBe(204);
    expect((await as(alice, 'PATCH', `/api/v1/findings/${findingOfA}`, { state: 'open' })).statusCode).toBe(403);
    expect((await as(owner, 'DELETE', `/api/v1/teams/${other.id}`)).statusCode).toBe(204);
    expect(await reads(alice, a, findingOfA)).toEqual(new Set([404]));
    expect(await repoNames(alice)).toEqual({ names: [], total: '0' });
    expect((await as(owner, 'DELETE', `/api/v1/teams/${team.id}/repos/${a.id}`)).statusCode).toBe(404);
  });

  it('lists a team\'s repositories with their roles, as far as the caller may read them, and audits each change', async () => {
    await grant('read', a.id);
    await grant('admin', b.id);
    const listed = await as(owner, 'GET', `/api/v1/teams/${team.id}/repos`);
    expect(listed.json()).toEqual([
      { repository_id: b.id, name: 'ledger', full_name: null, role: 'admin' },
      { repository_id: a.id, name: 'payments', full_name: null, role: 'read' },
    ]);
    // Bob (no team) reads the team but none of its repositories.
    const seenByBob = await as(bob, 'GET', `/api/v1/teams/${team.id}/repos`);
    expect(seenByBob.statusCode).toBe(200);
    expect(seenByBob.json()).toEqual([]);
    expect((await as(bob, 'PUT', `/api/v1/teams/${team.id}/repos/${a.id}`, { role: 'read' })).statusCode).toBe(403);
    const audit = (await as(owner, 'GET', `/api/v1/orgs/${org.id}/audit?action=team.repo_granted&per_page=1`)).json<{ details: unknown; target: unknown }[]>();
    expect(audit[0]).toMatchObject({ target: { type: 'team', id: team.id }, details: { repository_id: b.id, repository: 'ledger', role: 'admin' } });
    expect((await as(owner, 'GET', `/api/v1/orgs/${org.id}/audit?action=team.repo_revoked`)).json<unknown[]>().length).toBeGreaterThan(0);
  });

  it('refuses a role it does not know (400) and a repository of another org or none (404, alike)', async () => {
    const bad = await as(owner, 'PUT', `/api/v1/teams/${team.id}/repos/${a.id}`, { role: 'owner' });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect((await as(owner, 'PUT', `/api/v1/teams/${team.id}/repos/${a.id}`, {})).statusCode).toBe(400);
    const api = orgClient(t);
    const elsewhere = await api.createOrg(owner.cookie, 'elsewhere');
    const foreign = await api.createRepo(owner.cookie, elsewhere.id, { name: 'foreign' });
    const refused = await as(owner, 'PUT', `/api/v1/teams/${team.id}/repos/${foreign.id}`, { role: 'read' });
    const absent = await as(owner, 'PUT', `/api/v1/teams/${team.id}/repos/0190a3b2-0000-7000-8000-000000000000`, { role: 'read' });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual(absent.json());
    expect((await as(owner, 'GET', `/api/v1/teams/${team.id}/repos`)).json<{ name: string }[]>().map((r) => r.name)).not.toContain('foreign');
  });

  it('refuses to change a team that follows the forge (409), and shows where each team comes from', async () => {
    const forgeTeam = await orgClient(t).createTeam(owner.cookie, org.id, { name: 'synced' });
    expect(forgeTeam).toMatchObject({ source: 'local' });
    // As forge sync leaves it.
    await t.db.kysely.updateTable('teams').set({ source: 'forge', forge_id: '42' }).where('id', '=', forgeTeam.id).execute();
    expect((await as(owner, 'GET', `/api/v1/teams/${forgeTeam.id}`)).json()).toMatchObject({ source: 'forge' });
    for (const [method, url, payload] of [
      ['PUT', `/api/v1/teams/${forgeTeam.id}`, { name: 'renamed' }],
      ['PUT', `/api/v1/teams/${forgeTeam.id}`, { members: [alice.user.id] }],
      ['DELETE', `/api/v1/teams/${forgeTeam.id}`, undefined],
      ['PUT', `/api/v1/teams/${forgeTeam.id}/repos/${a.id}`, { role: 'read' }],
      ['DELETE', `/api/v1/teams/${forgeTeam.id}/repos/${a.id}`, undefined],
    ] as const) {
      const res = await as(owner, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(409);
      expect(res.json().detail).toMatch(/follows the forge/);
    }
    expect((await as(owner, 'GET', `/api/v1/teams/${forgeTeam.id}`)).json()).toMatchObject({ name: 'synced', members: [] });
  });

  it('shows members as pending until they first sign in, and where each membership comes from', async () => {
    const members = (await as(owner, 'GET', `/api/v1/orgs/${org.id}/members`)).json<{ user_id: string; state: string; source: string }[]>();
    expect(members.map((m) => [m.state, m.source])).toEqual([['active', 'local'], ['active', 'local'], ['active', 'local']]);
    // As forge sync leaves a member who has an account but never signed in.
    await t.db.kysely.updateTable('users').set({ last_login_at: null }).where('id', '=', bob.user.id).execute();
    await t.db.kysely.updateTable('memberships').set({ source: 'forge' }).where('user_id', '=', bob.user.id).execute();
    expect((await as(owner, 'GET', `/api/v1/orgs/${org.id}/members/${bob.user.id}`)).json()).toMatchObject({ state: 'pending', source: 'forge' });
  });

  it('shows a repository\'s forge identity', async () => {
    expect((await as(owner, 'GET', `/api/v1/repos/${a.id}`)).json()).toMatchObject({ forge_id: null, full_name: null, visibility: null, archived: false, gone: false });
    await t.db.kysely.updateTable('repos').set({ forge_id: '1296269', full_name: 'acme/payments', visibility: 'private', archived: 1, gone: 1 }).where('id', '=', a.id).execute();
    expect((await as(owner, 'GET', `/api/v1/repos/${a.id}`)).json()).toMatchObject({ forge_id: '1296269', full_name: 'acme/payments', visibility: 'private', archived: true, gone: true });
    const listed = (await as(owner, 'GET', `/api/v1/orgs/${org.id}/repos`)).json<{ id: string; archived: boolean }[]>();
    expect(listed.find((r) => r.id === a.id)).toMatchObject({ archived: true, gone: true, full_name: 'acme/payments' });
  });
});
