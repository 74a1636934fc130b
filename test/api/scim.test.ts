import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { startOidcIdp, type OidcIdp } from '../support/oidc-idp.js';
import { orgClient, type Org } from '../support/orgs.js';

const SCIM = 'application/scim+json';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const BASE = 'http://localhost:8080';
const CLIENT = { client_id: 'scanyard', client_secret: 'scanyard-client-secret-value', redirect_uri: `${BASE}/auth/callback` };

describe.each(DB_KINDS)('SCIM 2.0 provisioning on %s', (kind) => {
  let idp: OidcIdp;
  let t: TestApp;
  let owner: { cookie: string };
  let acme: Org;
  let token: string;

  beforeAll(async () => {
    idp = await startOidcIdp([{ client_id: CLIENT.client_id, client_secret: CLIENT.client_secret, redirect_uris: [CLIENT.redirect_uri] }]);
    // The organisation's IdP, "corp", is the only enterprise provider; "test" (t.user) stands for a forge sign-in.
    const corp = { id: 'corp', type: 'oidc', name: 'Corp SSO', issuer: idp.issuer, client_id: CLIENT.client_id, client_secret: CLIENT.client_secret };
    t = await createTestApp(kind, { SERVICE_PROVIDERS: JSON.stringify([corp]) });
    owner = await t.user('scim-owner');
    acme = await orgClient(t).createOrg(owner.cookie, 'Acme SCIM');
    token = (await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token`, headers: { cookie: owner.cookie } })).json().token;
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  /** An account that signed in with the IdP (provider "corp", sub = `sub`), with a session cookie. */
  async function corpUser(login: string, sub = `sub-${login}`) {
    const user = await t.app.services.users.upsertForgeUser({ providerId: 'corp', forgeUserId: sub, login, name: login, email: null, avatarUrl: null });
    return { user, cookie: await t.cookieFor(user.id) };
  }

  /** What a browser does: /auth/login/corp → the IdP → back to /auth/callback; the session cookie it ends with. */
  async function signInWithIdp(claims: { sub: string; preferred_username: string }): Promise<string> {
    idp.nextUser = { ...claims, name: claims.preferred_username, email: `${claims.preferred_username}@corp.example` };
    const login = await t.request({ url: '/auth/login/corp' });
    const back = await idp.authorize(login.headers.location as string);
    return sessionCookie(await t.request({ url: `/auth/callback${back.search}`, headers: { cookie: sessionCookie(login) } }));
  }

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
    // Linked to accounts of the only OpenID Connect provider; a provider that is not one is refused.
    expect(first.json().provider).toBe('corp');
    const notOidc = await t.request({ method: 'POST', url: `/api/v1/orgs/${acme.id}/scim-token?provider=test`, headers: { cookie: owner.cookie } });
    expect(notOidc.statusCode).toBe(400);
    expect(notOidc.json().detail).toContain('corp');
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
    const ada = await corpUser('ada.okta');
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
    const grace = await corpUser('Test_User_ab6490ee', '7a1f-entra-oid');
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

  it('links a user provisioned before their first sign-in when they sign in with the IdP', async () => {
    const created = (await scim('POST', '/Users', { userName: 'late.joiner', externalId: 'sub-late' })).json();
    expect(created.active).toBe(true);
    const cookie = await signInWithIdp({ sub: 'sub-late', preferred_username: 'lj' });
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie } })).json();
    expect((await member(me.id)).json()).toMatchObject({ source: 'scim' });
    expect((await t.request({ url: `/api/v1/orgs/${acme.id}`, headers: { cookie } })).statusCode).toBe(200);
  });

  // Decision 1: a SCIM user is only ever linked to an account of the provider the org's token trusts.
  it('never links a SCIM user to an account of another provider that has the same login or id', async () => {
    // A forge account whose login is the userName, and one whose forge id is the externalId.
    const namesake = await t.user('mallory@corp.example');
    const idsake = await t.user('someone-else');
    const created = await scim('POST', '/Users', { userName: 'mallory@corp.example', externalId: idsake.user.forge_user_id });
    expect(created.statusCode).toBe(201);
    expect((await member(namesake.user.id)).statusCode).toBe(404);
    expect((await member(idsake.user.id)).statusCode).toBe(404);
    expect((await t.request({ url: `/api/v1/orgs/${acme.id}`, headers: { cookie: namesake.cookie } })).statusCode).toBe(404);
    // Signing in again through the forge does not link either.
    await t.app.services.scimService.signedIn(namesake.user);
    expect((await member(namesake.user.id)).statusCode).toBe(404);
    // The IdP's own account with that login is the person.
    const cookie = await signInWithIdp({ sub: 'sub-mallory', preferred_username: 'mallory@corp.example' });
    const me = (await t.request({ url: '/api/v1/me', headers: { cookie } })).json();
    expect((await member(me.id)).json()).toMatchObject({ source: 'scim' });
  });

  // Decision 2: de-provisioning takes this org's access only; what reached nothing else ends.
  it("takes away only this org's access from a person who belongs to other orgs: keys for this org alone go, sessions lose this org at once", async () => {
    const other = await orgClient(t).createOrg(owner.cookie, 'Other SCIM org');
    const bob = await corpUser('bob.multi');
    await orgClient(t).setMember(owner.cookie, other.id, bob.user.id, 'member');
    const id = (await scim('POST', '/Users', { userName: 'bob.multi', externalId: 'sub-bob.multi' })).json().id as string;
    const acmeOnly = await t.apiKey(bob.cookie, { org_ids: [acme.id] });
    const both = await t.apiKey(bob.cookie, { org_ids: [acme.id, other.id] });
    const all = await t.apiKey(bob.cookie);
    const read = (credential: Record<string, string>, orgId: string) => t.request({ url: `/api/v1/orgs/${orgId}`, headers: credential });
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
    for (const credential of [{ cookie: bob.cookie }, bearer(acmeOnly), bearer(both), bearer(all)]) {
      expect((await read(credential, acme.id)).statusCode).toBe(200);
    }

    await scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
    // The very next request of the same session cannot read the org, and still reads the other one.
    expect((await read({ cookie: bob.cookie }, acme.id)).statusCode).toBe(404);
    expect((await read({ cookie: bob.cookie }, other.id)).statusCode).toBe(200);
    expect((await t.request({ url: '/api/v1/me', headers: bearer(acmeOnly) })).statusCode).toBe(401);
    for (const key of [both, all]) {
      expect((await read(bearer(key), acme.id)).statusCode).toBe(404);
      expect((await read(bearer(key), other.id)).statusCode).toBe(200);
    }
    // The key narrowed to both orgs now names the other alone: re-provisioning does not give it this org back.
    await scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] });
    expect((await read({ cookie: bob.cookie }, acme.id)).statusCode).toBe(200);
    expect((await read(bearer(both), acme.id)).statusCode).toBe(404);
    expect((await read(bearer(all), acme.id)).statusCode).toBe(200);
  });

  // Decision 3: de-provisioning wins over the last-owner rule; a site administrator names a new owner.
  it("de-provisions an org's last owner, records it, and a site administrator can name a new owner", async () => {
    const carol = await corpUser('carol.owner');
    const solo = await orgClient(t).createOrg(carol.cookie, 'Solo SCIM org');
    const soloToken = (await t.request({ method: 'POST', url: `/api/v1/orgs/${solo.id}/scim-token`, headers: { cookie: carol.cookie } })).json().token as string;
    const id = (await scim('POST', '/Users', { userName: 'carol.owner', externalId: 'sub-carol.owner' }, soloToken)).json().id as string;
    // The existing owner membership is kept as it is (SCIM grants "member" only to people not yet in the org).
    expect((await t.request({ url: `/api/v1/orgs/${solo.id}/members/${carol.user.id}`, headers: { cookie: carol.cookie } })).json()).toMatchObject({ role: 'owner', source: 'local' });

    expect((await scim('DELETE', `/Users/${id}`, undefined, soloToken)).statusCode).toBe(204);
    expect((await t.request({ url: `/api/v1/orgs/${solo.id}`, headers: { cookie: carol.cookie } })).statusCode).toBe(401);
    const admin = await t.user('scim-site-admin', { admin: true });
    const audit = (await t.request({ url: `/api/v1/orgs/${solo.id}/audit?action=member.removed`, headers: { cookie: admin.cookie } })).json();
    expect(audit.items ?? audit).toEqual(expect.arrayContaining([expect.objectContaining({ details: expect.objectContaining({ source: 'scim', role: 'owner', last_owner: true }) })]));
    const named = await t.request({ method: 'PUT', url: `/api/v1/orgs/${solo.id}/members/${admin.user.id}`, headers: { cookie: admin.cookie }, payload: { role: 'owner' } });
    expect(named.statusCode).toBeLessThan(300);
  });

  it('answers the discovery resources', async () => {
    expect((await scim('GET', '/ServiceProviderConfig')).json()).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } });
    expect((await scim('GET', '/ResourceTypes')).json().Resources).toEqual([
      expect.objectContaining({ id: 'User', endpoint: '/Users', schema: 'urn:ietf:params:scim:schemas:core:2.0:User' }),
      expect.objectContaining({ id: 'Group', endpoint: '/Groups', schema: 'urn:ietf:params:scim:schemas:core:2.0:Group' }),
    ]);
    const schemas = (await scim('GET', '/Schemas')).json().Resources as { id: string; attributes: { name: string }[] }[];
    expect(schemas.map((s) => s.id)).toEqual(['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:core:2.0:Group']);
    expect(schemas[1]!.attributes.map((a) => a.name)).toEqual(['displayName', 'members', 'externalId']);
    expect((await scim('GET', '/Schemas', undefined, 'wrong')).statusCode).toBe(401);
  });
});
