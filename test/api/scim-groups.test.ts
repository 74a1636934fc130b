import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient, type Org } from '../support/orgs.js';

const SCIM = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** SCIM Groups as teams of the organisation (`source: "scim"`), driven the way Okta and Entra ID drive them. */
describe.each(DB_KINDS)('SCIM 2.0 Groups on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let acme: Org;
  let token: string;
  let repoId: string;

  beforeAll(async () => {
    // "corp" is the organisation's IdP; its discovery is never fetched here (accounts are made as if signed in).
    const corp = { id: 'corp', type: 'oidc', name: 'Corp SSO', issuer: 'http://127.0.0.1:1/corp', client_id: 'c', client_secret: 's' };
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify([corp]) });
    owner = await t.user('groups-owner');
    acme = await orgClient(t).createOrg(owner.cookie, 'Acme Groups');
    repoId = (await orgClient(t).createRepo(owner.cookie, acme.id, { name: 'payments-api' })).id;
    token = (await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token;
  });
  afterAll(() => t.close());

  const scim = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, bearer = token) =>
    t.request({
      method, url: `/scim/v2${url}`,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': SCIM } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
  const filter = (f: string) => encodeURIComponent(f);
  const team = async (id: string) => t.request({ url: `/api/v1/teams/${id}`, headers: { cookie: owner.cookie } });

  /** A person who signed in with the IdP, provisioned as a SCIM user (so a member of the org); returns both ids. */
  async function provisioned(login: string): Promise<{ scimId: string; userId: string; cookie: string }> {
    const user = await t.app.services.users.upsertForgeUser({ providerId: 'corp', forgeUserId: `sub-${login}`, login, name: login, email: null, avatarUrl: null });
    const created = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: login, externalId: `sub-${login}`, active: true });
    expect(created.statusCode).toBe(201);
    return { scimId: created.json().id, userId: user.id, cookie: await t.cookieFor(user.id) };
  }

  // Okta, "SCIM 2.0 protocol reference", SCIM Group operations (developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20):
  // the request bodies below are its examples (Push Groups: create, find by displayName, read, rename, membership by
  // PATCH remove-by-filter + add, PUT with members, full push by PATCH replace, delete).
  it("follows Okta's Group Push: the group becomes a team whose members follow the group's", async () => {
    const alice = await provisioned('test.user@okta.local');
    const bruno = await provisioned('bruno@okta.local');

    const empty = await scim('GET', '/Groups?startIndex=1&count=100');
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
    expect((await scim('GET', `/Groups?filter=${filter('displayName eq "Test SCIMv2"')}&startIndex=1&count=100`)).json().totalResults).toBe(0);

    const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toContain(SCIM);
    const group = created.json();
    expect(group).toMatchObject({ schemas: [GROUP], displayName: 'Test SCIMv2', members: [], meta: { resourceType: 'Group' } });
    expect(created.headers.location).toBe(`http://localhost:8080/scim/v2/Groups/${group.id}`);
    expect((await team(group.id)).json()).toMatchObject({ id: group.id, name: 'Test SCIMv2', source: 'scim', members: [] });

    const found = (await scim('GET', `/Groups?filter=${filter('displayName eq "Test SCIMv2"')}&startIndex=1&count=100`)).json();
    expect(found).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ id: group.id, displayName: 'Test SCIMv2' }] });
    // displayName compares ignoring case, as team names do.
    expect((await scim('GET', `/Groups?filter=${filter('displayName eq "test scimv2"')}`)).json().totalResults).toBe(1);
    expect((await scim('GET', `/Groups/${group.id}`)).json()).toMatchObject({ id: group.id, displayName: 'Test SCIMv2', members: [] });

    const renamed = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id: group.id, displayName: 'Test SCIMv20' } }],
    });
    expect(renamed.statusCode).toBe(204);
    expect((await team(group.id)).json().name).toBe('Test SCIMv20');

    const members = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'remove', path: `members[value eq "${bruno.scimId}"]` },
        { op: 'add', path: 'members', value: [{ value: alice.scimId, display: 'test.user@okta.local' }, { value: bruno.scimId, display: 'bruno@okta.local' }] },
      ],
    });
    expect(members.statusCode).toBe(204);
    expect((await team(group.id)).json().members.sort()).toEqual([alice.userId, bruno.userId].sort());
    const read = (await scim('GET', `/Groups/${group.id}`)).json();
    expect(read.members).toEqual([
      { value: alice.scimId, display: 'test.user@okta.local', $ref: `http://localhost:8080/scim/v2/Users/${alice.scimId}` },
      { value: bruno.scimId, display: 'bruno@okta.local', $ref: `http://localhost:8080/scim/v2/Users/${bruno.scimId}` },
    ]);
    await scim('PATCH', `/Groups/${group.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${bruno.scimId}"]` }] });
    expect((await team(group.id)).json().members).toEqual([alice.userId]);

    // A member of the team reads what the team holds: the team is a real team.
    const grant = await t.request({ method: 'PUT', url: `/api/v1/teams/${group.id}/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { role: 'admin' } });
    expect(grant.statusCode).toBe(200);
    expect((await t.request({ url: `/api/v1/teams/${group.id}/repos`, headers: { cookie: alice.cookie } })).json()).toEqual([expect.objectContaining({ repository_id: repoId, role: 'admin' })]);

    // An app integration made with Okta's wizard sends the whole group by PUT.
    const put = await scim('PUT', `/Groups/${group.id}`, {
      schemas: [GROUP], displayName: 'Test SCIMv2', members: [{ value: bruno.scimId, display: 'bruno@okta.local' }],
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id: group.id, displayName: 'Test SCIMv2', members: [{ value: bruno.scimId }] });
    expect((await team(group.id)).json()).toMatchObject({ name: 'Test SCIMv2', members: [bruno.userId] });

    // A full push of the membership.
    await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'members', value: [{ value: alice.scimId, display: 'a' }, { value: bruno.scimId, display: 'b' }] }],
    });
    expect((await team(group.id)).json().members.sort()).toEqual([alice.userId, bruno.userId].sort());

    // Unlinking the pushed group with "Delete the group in the target app": the team and its grants go.
    const deleted = await scim('DELETE', `/Groups/${group.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await team(group.id)).statusCode).toBe(404);
    expect((await scim('GET', `/Groups/${group.id}`)).statusCode).toBe(404);
    const grants = await t.db.kysely.selectFrom('team_repositories').selectAll().where('team_id', '=', group.id).execute();
    expect(grants).toEqual([]);
    expect((await t.request({ url: `/api/v1/repos/${repoId}`, headers: { cookie: alice.cookie } })).statusCode).toBe(200);
  });

  // Microsoft Entra ID, "Tutorial: Develop and plan provisioning for a SCIM endpoint", Group Operations
  // (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups): its request
  // examples, and the "Replace" of the whole member list Entra ID sends with "path": "members".
  it("follows Entra ID's group provisioning: create, read without members, rename, add, remove and replace members, delete", async () => {
    const dana = await provisioned('dana@contoso.com');
    const eli = await provisioned('eli@contoso.com');
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'displayName', meta: { resourceType: 'Group' },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect(created.json()).toMatchObject({ externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'displayName', members: [] });

    const one = (await scim('GET', `/Groups/${id}?excludedAttributes=members`)).json();
    expect(one).toMatchObject({ schemas: [GROUP], id, externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159', displayName: 'displayName' });
    expect(one).not.toHaveProperty('members');
    const byName = (await scim('GET', `/Groups?excludedAttributes=members&filter=${filter('displayName eq "displayName"')}`)).json();
    expect(byName).toMatchObject({ schemas: [LIST], totalResults: 1, Resources: [{ id, displayName: 'displayName' }] });
    expect(byName.Resources[0]).not.toHaveProperty('members');
    expect((await scim('GET', `/Groups?filter=${filter('externalId eq "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"')}`)).json().totalResults).toBe(1);

    const rename = await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' }],
    });
    expect(rename.statusCode).toBe(204);
    expect((await team(id)).json().name).toBe('1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName');

    const add = await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: dana.scimId }, { $ref: null, value: eli.scimId }] }],
    });
    expect(add.statusCode).toBe(204);
    expect((await team(id)).json().members.sort()).toEqual([dana.userId, eli.userId].sort());
    // Entra ID asks whether a user is in a group by filter.
    const isIn = (scimId: string) => scim('GET', `/Groups?excludedAttributes=members&filter=${filter(`id eq "${id}" and members eq "${scimId}"`)}`);
    expect((await isIn(dana.scimId)).json().totalResults).toBe(1);

    const remove = await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: dana.scimId }] }],
    });
    expect(remove.statusCode).toBe(204);
    expect((await team(id)).json().members).toEqual([eli.userId]);
    expect((await isIn(dana.scimId)).json().totalResults).toBe(0);

    const replace = await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'members', value: [{ value: dana.scimId }] }],
    });
    expect(replace.statusCode).toBe(204);
    expect((await team(id)).json().members).toEqual([dana.userId]);

    expect((await scim('DELETE', `/Groups/${id}`)).statusCode).toBe(204);
    expect((await team(id)).statusCode).toBe(404);
  });

  it('keeps the team to members of the org: a user not linked yet or deactivated is in the group, not the team, until linked or active again', async () => {
    const fay = await provisioned('fay@corp.example');
    const pending = (await scim('POST', '/Users', { userName: 'gus@corp.example', externalId: 'sub-gus' })).json().id as string;
    const id = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Platform', members: [{ value: fay.scimId }, { value: pending }] })).json().id as string;
    expect((await scim('GET', `/Groups/${id}`)).json().members.map((m: { value: string }) => m.value)).toEqual([fay.scimId, pending]);
    expect((await team(id)).json().members).toEqual([fay.userId]);

    // Gus signs in with the IdP for the first time: linked, a member, and in the team.
    const gus = await t.app.services.users.upsertForgeUser({ providerId: 'corp', forgeUserId: 'sub-gus', login: 'gus', name: null, email: null, avatarUrl: null });
    await t.app.services.scimService.signedIn(gus);
    expect((await team(id)).json().members.sort()).toEqual([fay.userId, gus.id].sort());

    await scim('PATCH', `/Users/${fay.scimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: false }] });
    expect((await team(id)).json().members).toEqual([gus.id]);
    await scim('PATCH', `/Users/${fay.scimId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: true }] });
    expect((await team(id)).json().members.sort()).toEqual([fay.userId, gus.id].sort());

    // A user deleted by SCIM leaves the group and the team.
    await scim('DELETE', `/Users/${fay.scimId}`);
    expect((await scim('GET', `/Groups/${id}`)).json().members.map((m: { value: string }) => m.value)).toEqual([pending]);
    expect((await team(id)).json().members).toEqual([gus.id]);
  });

  it('refuses local edits of a SCIM team with 409, but lets owners grant it repositories', async () => {
    const id = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Provisioned' })).json().id as string;
    const listed = (await t.request({ url: `/api/v1/orgs/${acme.id}/teams`, headers: { cookie: owner.cookie } })).json() as { id: string; source: string }[];
    expect(listed.find((x) => x.id === id)?.source).toBe('scim');

    for (const req of [
      { method: 'PUT' as const, url: `/api/v1/teams/${id}`, payload: { name: 'Renamed here' } },
      { method: 'PUT' as const, url: `/api/v1/teams/${id}`, payload: { members: [] } },
      { method: 'DELETE' as const, url: `/api/v1/teams/${id}` },
    ]) {
      const res = await t.request({ ...req, headers: { cookie: owner.cookie } });
      expect(res.statusCode).toBe(409);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toContain('provisioned by SCIM');
    }
    expect((await team(id)).json().name).toBe('Provisioned');
    const grant = await t.request({ method: 'PUT', url: `/api/v1/teams/${id}/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { role: 'read' } });
    expect(grant.statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/teams/${id}/repos/${repoId}`, headers: { cookie: owner.cookie } })).statusCode).toBe(204);
  });

  it('refuses a name taken by another team, a member from elsewhere, and malformed groups with SCIM errors', async () => {
    await orgClient(t).createTeam(owner.cookie, acme.id, { name: 'Local Team' });
    expect((await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'local team' })).json()).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const beta = await orgClient(t).createOrg(owner.cookie, 'Beta Groups');
    const betaToken = (await t.request({ method: 'POST', url: `/api/v1/orgs/${beta.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token as string;
    const betaUser = (await scim('POST', '/Users', { userName: 'beta-only' }, betaToken)).json().id as string;
    const foreign = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'With a stranger', members: [{ value: betaUser }] });
    expect(foreign.json()).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await scim('GET', `/Groups?filter=${filter('displayName eq "With a stranger"')}`)).json().totalResults).toBe(0);

    for (const body of [{ schemas: [GROUP] }, { displayName: '' }, { displayName: 'x'.repeat(101) }, { displayName: '\u200b' }, { displayName: 'ok', members: 'all' }, []]) {
      const res = await scim('POST', '/Groups', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    }
    const id = (await scim('POST', '/Groups', { displayName: 'Patch target' })).json().id as string;
    for (const Operations of [
      [{ op: 'remove', path: 'displayName' }],
      [{ op: 'add', path: 'members[value eq "x"]', value: [] }],
      [{ op: 'remove', path: 'members[display co "x"]' }],
      [{ op: 'explode', path: 'members' }],
      [{ op: 'replace', value: 'not an object' }],
    ]) {
      const res = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH_OP], Operations });
      expect(res.statusCode).toBe(400);
      expect(res.json().status).toBe('400');
    }
  });

  it("answers another organisation's token with 404 for every group of this one, and bad filters with invalidFilter", async () => {
    const mine = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Only Acme' })).json().id as string;
    const gamma = await orgClient(t).createOrg(owner.cookie, 'Gamma Groups');
    const other = (await t.request({ method: 'POST', url: `/api/v1/orgs/${gamma.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token as string;
    for (const [method, body] of [['GET'], ['PUT', { displayName: 'Taken over' }], ['PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'Taken over' }] }], ['DELETE']] as const) {
      const res = await scim(method, `/Groups/${mine}`, body, other);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404' });
    }
    expect((await scim('GET', '/Groups', undefined, other)).json().totalResults).toBe(0);
    expect((await scim('GET', `/Groups?filter=${filter('displayName eq "Only Acme"')}`, undefined, other)).json().totalResults).toBe(0);
    expect((await team(mine)).json().name).toBe('Only Acme');

    for (const f of ['displayName co "Only"', 'displayName eq "a" or displayName eq "b"', 'members[value eq "x"]', 'not (id eq "x")', 'displayName eq', 'title eq "x"']) {
      expect((await scim('GET', `/Groups?filter=${filter(f)}`)).json()).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    }
  });
});
