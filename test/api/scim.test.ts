import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient, type Org } from '../support/orgs.js';

const SCIM = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe.each(DB_KINDS)('SCIM 2.0 provisioning on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let acme: Org;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp(kind);
    owner = await t.user('scim-owner');
    acme = await orgClient(t).createOrg(owner.cookie, 'Acme SCIM');
    token = (await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token;
  });
  afterAll(() => t.close());

  const scim = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, bearer = token) =>
    t.request({
      method, url: `/scim/v2${url}`,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': SCIM } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
  const member = (userId: string) => t.request({ url: `/api/v1/orgs/${acme.id}/members/${userId}`, headers: { cookie: owner.cookie } });

  it('issues the token to owners only, once per call, and a new one replaces the old', async () => {
    const other = await t.user('scim-member');
    await orgClient(t).setMember(owner.cookie, acme.id, other.user.id, 'member');
    expect((await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { cookie: other.cookie } })).statusCode).toBe(403);
    const key = await t.apiKey(owner.cookie);
    expect((await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(403);

    const first = await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { cookie: owner.cookie } });
    expect(first.statusCode).toBe(201);
    const old = first.json().token as string;
    expect((await scim('GET', '/Users', undefined, old)).statusCode).toBe(200);
    const rows = await t.db.kysely.selectFrom('scim_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(old);
    token = (await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token;
    const refused = await scim('GET', '/Users', undefined, old);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
    expect((await scim('GET', '/Users', undefined, 'nonsense')).statusCode).toBe(401);
  });

  // Okta's "SCIM 2.0 protocol reference" (developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20):
  // check by userName, create, read back, deactivate by PATCH replace {active:false}.
  it("follows Okta's provisioning sequence, linking by externalId = sub and de-provisioning within one request", async () => {
    const ada = await t.user('ada.okta');
    const key = await t.apiKey(ada.cookie);
    const sub = ada.user.forge_user_id!;

    const search = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "ada@okta.local"')}&startIndex=1&count=100`);
    expect(search.statusCode).toBe(200);
    expect(search.headers['content-type']).toContain(SCIM);
    expect(search.json()).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });

    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'ada@okta.local',
      name: { givenName: 'Ada', familyName: 'Lovelace' }, emails: [{ primary: true, value: 'ada@okta.local', type: 'work' }],
      displayName: 'Ada Lovelace', locale: 'en-US', externalId: sub, groups: [], password: '1mz050nq', active: true,
    });
    expect(created.statusCode).toBe(201);
    const user = created.json();
    expect(user).toMatchObject({ userName: 'ada@okta.local', externalId: sub, active: true, displayName: 'Ada Lovelace', emails: [{ value: 'ada@okta.local' }] });
    expect(created.headers.location).toBe(`http://localhost:8080/scim/v2/Users/${user.id}`);
    expect(JSON.stringify(user)).not.toContain('1mz050nq');
    expect((await member(ada.user.id)).json()).toMatchObject({ role: 'member', source: 'scim' });

    expect((await scim('GET', `/Users/${user.id}`)).json()).toMatchObject({ id: user.id, userName: 'ada@okta.local' });
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "ADA@okta.local"')}`)).json().totalResults).toBe(1);
    expect((await scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${sub}"`)}`)).json().totalResults).toBe(1);
    expect((await scim('POST', '/Users', { userName: 'Ada@Okta.local' })).json()).toMatchObject({ status: '409', scimType: 'uniqueness' });

    // The person is signed in and has a key; de-provisioning ends both at once.
    expect((await t.request({ url: '/api/v1/me', headers: { cookie: ada.cookie } })).statusCode).toBe(200);
    const off = await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(off.statusCode).toBe(200);
    expect(off.json().active).toBe(false);
    expect((await t.request({ url: '/api/v1/me', headers: { cookie: ada.cookie } })).statusCode).toBe(401);
    expect((await t.request({ url: '/api/v1/me', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(401);
    expect((await member(ada.user.id)).statusCode).toBe(404);

    // Okta re-activates the same way.
    await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] });
    expect((await member(ada.user.id)).json()).toMatchObject({ source: 'scim' });
  });

  // Microsoft Entra ID, "Tutorial: Develop and plan provisioning for a SCIM endpoint"
  // (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups), its request examples:
  // query by userName, create, update with "Replace" operations and path filters, disable, delete.
  it("follows Entra ID's provisioning sequence, linking by userName = login, and DELETE revokes the session", async () => {
    const grace = await t.user('Test_User_ab6490ee');
    const query = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "Test_User_ab6490ee"')}`);
    expect(query.json().totalResults).toBe(0);
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef', userName: 'Test_User_ab6490ee', active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b@testuser.com' }], meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' }, roles: [],
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    expect((await member(grace.user.id)).json()).toMatchObject({ source: 'scim' });

    const updated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ emails: [{ value: 'updatedEmail@microsoft.com' }], displayName: 'givenName familyName' });

    // Entra ID sends the boolean as the string "False" in some tenants; both are understood.
    const disabled = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(disabled.json().active).toBe(false);
    expect((await member(grace.user.id)).statusCode).toBe(404);
    await scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: true }] });

    const session = await t.cookieFor(grace.user.id);
    expect((await t.request({ url: '/api/v1/me', headers: { cookie: session } })).statusCode).toBe(200);
    expect((await scim('DELETE', `/Users/${id}`)).statusCode).toBe(204);
    expect((await t.request({ url: '/api/v1/me', headers: { cookie: session } })).statusCode).toBe(401);
    expect((await member(grace.user.id)).statusCode).toBe(404);
    expect((await scim('GET', `/Users/${id}`)).statusCode).toBe(404);
  });

  it('replaces a user by PUT, pages with startIndex/count, and refuses bad filters and bodies with SCIM errors', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await scim('POST', '/Users', { userName: `page-${n}` })).json().id);
    const put = await scim('PUT', `/Users/${ids[0]}`, { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'page-1', displayName: 'Put Name', active: true });
    expect(put.json()).toMatchObject({ displayName: 'Put Name', active: true });
    const all = (await scim('GET', '/Users?count=200')).json();
    const page = (await scim('GET', '/Users?startIndex=2&count=2')).json();
    expect(page).toMatchObject({ totalResults: all.totalResults, startIndex: 2, itemsPerPage: 2 });
    expect(page.Resources.map((r: { id: string }) => r.id)).toEqual(all.Resources.slice(1, 3).map((r: { id: string }) => r.id));
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('title co "x"')}`)).json()).toMatchObject({ status: '400', scimType: 'invalidFilter' });
    expect((await scim('POST', '/Users', { displayName: 'no userName' })).json()).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect((await scim('PATCH', `/Users/${ids[1]}`, { Operations: [{ op: 'explode', path: 'active' }] })).statusCode).toBe(400);
    const broken = await t.request({ method: 'POST', url: '/scim/v2/Users', headers: { authorization: `Bearer ${token}`, 'content-type': SCIM }, payload: '{not json' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
  });

  it("keeps each organisation's users to its own token (another org's token gets 404)", async () => {
    const mine = (await scim('POST', '/Users', { userName: 'only-acme' })).json().id as string;
    const beta = await orgClient(t).createOrg(owner.cookie, 'Beta SCIM');
    const betaToken = (await t.request({ method: 'POST', url: `/api/v1/orgs/${beta.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token as string;
    expect((await scim('GET', `/Users/${mine}`, undefined, betaToken)).statusCode).toBe(404);
    expect((await scim('PATCH', `/Users/${mine}`, { Operations: [{ op: 'replace', value: { active: false } }] }, betaToken)).statusCode).toBe(404);
    expect((await scim('DELETE', `/Users/${mine}`, undefined, betaToken)).statusCode).toBe(404);
    expect((await scim('GET', '/Users', undefined, betaToken)).json().totalResults).toBe(0);
    expect((await scim('GET', `/Users/${mine}`)).statusCode).toBe(200);
  });

  it('links a user provisioned before their first sign-in when they sign in', async () => {
    const created = (await scim('POST', '/Users', { userName: 'late.joiner', externalId: 'sub-late' })).json();
    expect(created.active).toBe(true);
    const user = await t.app.services.users.upsertForgeUser({ providerId: 'corp', forgeUserId: 'sub-late', login: 'lj', name: null, email: null, avatarUrl: null });
    await t.app.services.scimService.signedIn(user);
    expect((await member(user.id)).json()).toMatchObject({ source: 'scim' });
  });

  it('answers the discovery resources', async () => {
    expect((await scim('GET', '/ServiceProviderConfig')).json()).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } });
    expect((await scim('GET', '/ResourceTypes')).json().Resources[0]).toMatchObject({ id: 'User', endpoint: '/Users' });
    expect((await scim('GET', '/Schemas')).json().Resources[0].id).toBe('urn:ietf:params:scim:schemas:core:2.0:User');
    expect((await scim('GET', '/Schemas', undefined, 'wrong')).statusCode).toBe(401);
  });
});
