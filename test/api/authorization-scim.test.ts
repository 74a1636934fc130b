import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * Every SCIM route (/scim/v2) called by every kind of caller. Only an organisation's SCIM token
 * opens them; nothing else a person holds does (their session, their API key), and a token of
 * another organisation sees none of this one's users or groups: 404 exactly like a missing id.
 */
type Caller = 'no token' | 'malformed header' | 'wrong token' | "owner's session" | "owner's API key" | "another org's token" | "the org's token";
const CALLERS: Caller[] = ['no token', 'malformed header', 'wrong token', "owner's session", "owner's API key", "another org's token", "the org's token"];

interface Fixture { userId: string; groupId: string }
interface Route { route: string; ok: number; request: (f: Fixture) => { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string; body?: unknown };
  /** What another org's token gets: 404 on one resource, an empty list on a search, its own answer on discovery. */
  foreign: number | 'empty' }

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
let made = 0;
const ROUTES: Route[] = [
  { route: 'GET /ServiceProviderConfig', ok: 200, foreign: 200, request: () => ({ method: 'GET', url: '/ServiceProviderConfig' }) },
  { route: 'GET /ResourceTypes', ok: 200, foreign: 200, request: () => ({ method: 'GET', url: '/ResourceTypes' }) },
  { route: 'GET /Schemas', ok: 200, foreign: 200, request: () => ({ method: 'GET', url: '/Schemas' }) },
  { route: 'GET /Users', ok: 200, foreign: 'empty', request: () => ({ method: 'GET', url: '/Users' }) },
  { route: 'POST /Users', ok: 201, foreign: 201, request: () => ({ method: 'POST', url: '/Users', body: { userName: `matrix-${++made}` } }) },
  { route: 'GET /Users/{id}', ok: 200, foreign: 404, request: (f) => ({ method: 'GET', url: `/Users/${f.userId}` }) },
  { route: 'PUT /Users/{id}', ok: 200, foreign: 404, request: (f) => ({ method: 'PUT', url: `/Users/${f.userId}`, body: { userName: 'matrix-user', active: true } }) },
  { route: 'PATCH /Users/{id}', ok: 200, foreign: 404, request: (f) => ({ method: 'PATCH', url: `/Users/${f.userId}`, body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] } }) },
  { route: 'DELETE /Users/{id}', ok: 204, foreign: 404, request: (f) => ({ method: 'DELETE', url: `/Users/${f.userId}` }) },
  { route: 'GET /Groups', ok: 200, foreign: 'empty', request: () => ({ method: 'GET', url: '/Groups' }) },
  { route: 'POST /Groups', ok: 201, foreign: 201, request: () => ({ method: 'POST', url: '/Groups', body: { displayName: `Matrix ${++made}` } }) },
  { route: 'GET /Groups/{id}', ok: 200, foreign: 404, request: (f) => ({ method: 'GET', url: `/Groups/${f.groupId}` }) },
  { route: 'PUT /Groups/{id}', ok: 200, foreign: 404, request: (f) => ({ method: 'PUT', url: `/Groups/${f.groupId}`, body: { displayName: `Matrix group ${++made}` } }) },
  { route: 'PATCH /Groups/{id}', ok: 204, foreign: 404, request: (f) => ({ method: 'PATCH', url: `/Groups/${f.groupId}`, body: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'displayName', value: `Matrix group ${++made}` }] } }) },
  { route: 'DELETE /Groups/{id}', ok: 204, foreign: 404, request: (f) => ({ method: 'DELETE', url: `/Groups/${f.groupId}` }) },
];

describe.each(DB_KINDS)('who may call the SCIM routes on %s', (kind) => {
  let t: TestApp;
  const headers = new Map<Caller, Record<string, string>>();

  beforeAll(async () => {
    t = await createTestApp(kind);
    const owner = await t.user('scim-matrix-owner');
    const orgs = orgClient(t);
    const orgId = (await orgs.createOrg(owner.cookie, 'SCIM matrix')).id;
    const otherId = (await orgs.createOrg(owner.cookie, 'SCIM matrix other')).id;
    const tokenOf = async (id: string) => (await t.request({ method: 'POST', url: `/api/v1/orgs/${id}/scim-token`, headers: { cookie: owner.cookie } })).json().token as string;
    const token = await tokenOf(orgId);
    headers.set('no token', {});
    headers.set('malformed header', { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` });
    headers.set('wrong token', { authorization: `Bearer ${token.slice(0, -2)}xx` });
    headers.set("owner's session", { cookie: owner.cookie });
    headers.set("owner's API key", { authorization: `Bearer ${await t.apiKey(owner.cookie)}` });
    headers.set("another org's token", { authorization: `Bearer ${await tokenOf(otherId)}` });
    headers.set("the org's token", { authorization: `Bearer ${token}` });
  });
  afterAll(() => t.close());

  /** A user and a group of the org, made fresh for each call (a DELETE consumes them). */
  async function fixture(): Promise<Fixture> {
    const auth = headers.get("the org's token")!;
    const post = (url: string, body: unknown) => t.request({ method: 'POST', url: `/scim/v2${url}`, headers: { ...auth, 'content-type': 'application/scim+json' }, payload: JSON.stringify(body) });
    const userId = (await post('/Users', { userName: `fixture-${++made}` })).json().id as string;
    const groupId = (await post('/Groups', { displayName: `Fixture ${++made}` })).json().id as string;
    return { userId, groupId };
  }

  const cases = ROUTES.flatMap((r) => CALLERS.map((caller) => [r.route, caller, r] as const));
  it.each(cases)('%s by %s', async (_name, caller, route) => {
    const f = await fixture();
    const { method, url, body } = route.request(f);
    const res = await t.request({
      method, url: `/scim/v2${url}`,
      headers: { ...headers.get(caller)!, ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const expected = caller === "the org's token" ? route.ok
      : caller === "another org's token" ? (route.foreign === 'empty' ? 200 : route.foreign)
      : 401;
    expect(res.statusCode, res.body).toBe(expected);
    if (expected >= 400) {
      expect(res.headers['content-type']).toContain('application/scim+json');
      expect(res.json()).toMatchObject({ schemas: [ERROR], status: String(expected) });
    }
    if (route.foreign === 'empty' && caller === "another org's token") expect(res.json().totalResults).toBe(0);
    // Nothing of this org was changed by a caller that may not.
    if (expected >= 400) {
      const still = await t.request({ url: `/scim/v2/Groups/${f.groupId}`, headers: headers.get("the org's token")! });
      expect(still.json()).toMatchObject({ displayName: expect.stringMatching(/^Fixture /) });
    }
  });

  it.each(['/Users', '/Groups'])('answers a filter it does not support on %s with 400 invalidFilter', async (list) => {
    for (const filter of ['userName sw "a"', 'x eq "1" or y eq "2"', '"', 'emails[type eq "work"].value eq "a"', 'a'.repeat(2000)]) {
      const res = await t.request({ url: `/scim/v2${list}?filter=${encodeURIComponent(filter)}`, headers: headers.get("the org's token")! });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
    }
  });
});
