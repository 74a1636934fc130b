import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient, type Org, type Repo, type Team } from '../support/orgs.js';

/**
 * Every endpoint of orgs, repos, teams and members, called by every kind of caller. A session or
 * key of: a stranger (signed in, not in the org), a member, an owner, a site administrator (not in
 * the org); keys with the write scope, the read scope, and narrowed (write) to another org.
 */
const CALLERS = [
  'nobody', 'stranger', 'member', 'owner', 'admin',
  'stranger key:write', 'stranger key:read', 'stranger key:narrowed',
  'member key:write', 'member key:read', 'member key:narrowed',
  'owner key:write', 'owner key:read', 'owner key:narrowed',
  'admin key:write', 'admin key:read', 'admin key:narrowed',
] as const;
type Caller = (typeof CALLERS)[number];

/** What an endpoint needs: any caller, one allowed to create orgs, an org reader, an org manager. */
type Rule = 'signed-in' | 'create-org' | 'read' | 'manage';

const OK = 0; // the endpoint's own success status
// 404: the org is not visible to the caller (not a member, or the key is narrowed elsewhere).
// 403: visible but not allowed (a member managing), or a read-scope key on a write.
// Narrowed keys may not create orgs (the new org would be outside the key).
const MATRIX: Record<Rule, number[]> = {
  //            nobody stranger member owner admin | stranger key   | member key     | owner key      | admin key
  //                                               | write read narr| write read narr| write read narr| write read narr
  'signed-in':  [401,  OK,      OK,    OK,   OK,     OK,   OK,  OK,   OK,   OK,  OK,   OK,   OK,  OK,   OK,   OK,  OK],
  'create-org': [401,  OK,      OK,    OK,   OK,     OK,   403, 403,  OK,   403, 403,  OK,   403, 403,  OK,   403, 403],
  read:         [401,  404,     OK,    OK,   OK,     404,  404, 404,  OK,   OK,  404,  OK,   OK,  404,  OK,   OK,  404],
  manage:       [401,  404,     403,   OK,   OK,     404,  403, 404,  403,  403, 404,  OK,   403, 404,  OK,   403, 404],
};

interface Fixture {
  org: Org;
  repo: Repo;
  team: Team;
  /** Things some requests consume (a deleted repo cannot be deleted again): made fresh per call. */
  fresh: {
    org(): Promise<Org>;
    repo(): Promise<Repo>;
    team(): Promise<Team>;
    signedInUser(): Promise<string>;
    member(): Promise<string>;
  };
  unique(): string;
}

interface Endpoint {
  route: string;
  rule: Rule;
  ok: number;
  request(f: Fixture): Promise<InjectOptions>;
}

const ENDPOINTS: Endpoint[] = [
  { route: 'GET /orgs', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/orgs' }) },
  { route: 'POST /orgs', rule: 'create-org', ok: 201, request: async (f) => ({ method: 'POST', url: '/api/v1/orgs', payload: { name: f.unique() } }) },
  { route: 'GET /orgs/{id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}` }) },
  { route: 'PUT /orgs/{id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}`, payload: { description: f.unique() } }) },
  { route: 'DELETE /orgs/{id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${(await f.fresh.org()).id}` }) },
  { route: 'GET /orgs/{org_id}/repos', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/repos` }) },
  { route: 'POST /orgs/{org_id}/repos', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/repos`, payload: { name: f.unique() } }) },
  { route: 'GET /repos/{id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}` }) },
  { route: 'DELETE /repos/{id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/repos/${(await f.fresh.repo()).id}` }) },
  { route: 'GET /orgs/{org_id}/teams', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/teams` }) },
  { route: 'POST /orgs/{org_id}/teams', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/teams`, payload: { name: f.unique() } }) },
  { route: 'GET /teams/{id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/teams/${f.team.id}` }) },
  { route: 'PUT /teams/{id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/teams/${f.team.id}`, payload: { description: f.unique() } }) },
  { route: 'DELETE /teams/{id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/teams/${(await f.fresh.team()).id}` }) },
  { route: 'GET /orgs/{id}/members', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/members` }) },
  { route: 'GET /orgs/{id}/members/{user_id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/members/${f.team.members[0]}` }) },
  { route: 'PUT /orgs/{id}/members/{user_id}', rule: 'manage', ok: 201, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/members/${await f.fresh.signedInUser()}`, payload: { role: 'member' } }) },
  { route: 'DELETE /orgs/{id}/members/{user_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/members/${await f.fresh.member()}` }) },
  { route: 'GET /users', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/users?q=o' }) },
];

describe.each(DB_KINDS)('authorization on %s', (kind) => {
  let t: TestApp;
  let fixture: Fixture;
  const credentials = new Map<Caller, Record<string, string>>();

  beforeAll(async () => {
    t = await createTestApp(kind);
    const api = orgClient(t);
    const [stranger, member, owner, admin] = await Promise.all(['stranger', 'member', 'owner', 'admin'].map((login) => t.user(login, { admin: login === 'admin' })));
    let counter = 0;
    const unique = () => `thing-${++counter}`;

    // The narrowed keys' org: every caller but the admin belongs to it, so each may narrow a key to it.
    const elsewhere = await api.createOrg(stranger!.cookie, 'Elsewhere');
    for (const user of [member!, owner!]) await api.setMember(stranger!.cookie, elsewhere.id, user.user.id, 'member');

    const makeOrg = async () => {
      const org = await api.createOrg(owner!.cookie, unique());
      await api.setMember(owner!.cookie, org.id, member!.user.id, 'member');
      return org;
    };
    const org = await makeOrg();
    fixture = {
      org,
      repo: await api.createRepo(owner!.cookie, org.id, { name: 'shared-repo' }),
      team: await api.createTeam(owner!.cookie, org.id, { name: 'shared-team', members: [member!.user.id] }),
      fresh: {
        org: makeOrg,
        repo: () => api.createRepo(owner!.cookie, org.id, { name: unique() }),
        team: () => api.createTeam(owner!.cookie, org.id, { name: unique() }),
        signedInUser: async () => (await t.user(unique())).user.id,
        member: async () => {
          const { user } = await t.user(unique());
          await api.setMember(owner!.cookie, org.id, user.id, 'member');
          return user.id;
        },
      },
      unique,
    };

    credentials.set('nobody', {});
    const people = { stranger: stranger!, member: member!, owner: owner!, admin: admin! };
    for (const [name, person] of Object.entries(people)) {
      credentials.set(name as Caller, { cookie: person.cookie });
      const bearer = async (body: Record<string, unknown>) => ({ authorization: `Bearer ${await t.apiKey(person.cookie, body)}` });
      credentials.set(`${name} key:write` as Caller, await bearer({ scopes: ['write'] }));
      credentials.set(`${name} key:read` as Caller, await bearer({ scopes: ['read'] }));
      credentials.set(`${name} key:narrowed` as Caller, await bearer({ scopes: ['write'], org_ids: [elsewhere.id] }));
    }
  });
  afterAll(() => t.close());

  // First, before the matrix has callers create orgs of their own.
  it('lists each caller the orgs they may see', async () => {
    const ids = async (caller: Caller) =>
      (await t.request({ url: '/api/v1/orgs?per_page=100', headers: credentials.get(caller) })).json<Org[]>().map((o) => o.name);
    expect(await ids('stranger')).toEqual(['Elsewhere']);
    expect(await ids('member')).toContain(fixture.org.name);
    expect(await ids('member key:narrowed')).toEqual(['Elsewhere']);
    expect(await ids('admin')).toContain(fixture.org.name);
    expect(await ids('admin key:narrowed')).toEqual(['Elsewhere']);
  });

  it.each(ENDPOINTS.map((e) => [e.route, e] as const))('%s answers each caller as the policy says', async (_route, endpoint) => {
    const expected: Record<string, number> = {};
    const actual: Record<string, number> = {};
    for (const [i, caller] of CALLERS.entries()) {
      const want = MATRIX[endpoint.rule][i]!;
      expected[caller] = want === OK ? endpoint.ok : want;
      const request = await endpoint.request(fixture);
      const res = await t.request({ ...request, headers: { ...request.headers, ...credentials.get(caller) } });
      actual[caller] = res.statusCode;
    }
    expect(actual).toEqual(expected);
  });

  it('answers an org, repo or team the caller cannot see exactly as one that does not exist', async () => {
    const missing = '0190a3b2-0000-7000-8000-000000000000';
    const pairs: [string, string][] = [
      [`/api/v1/orgs/${fixture.org.id}`, `/api/v1/orgs/${missing}`],
      [`/api/v1/orgs/${fixture.org.id}/repos`, `/api/v1/orgs/${missing}/repos`],
      [`/api/v1/orgs/${fixture.org.id}/members`, `/api/v1/orgs/${missing}/members`],
      [`/api/v1/repos/${fixture.repo.id}`, `/api/v1/repos/${missing}`],
    ];
    for (const [hidden, absent] of pairs) {
      const seen = await t.request({ url: hidden, headers: credentials.get('stranger') });
      const none = await t.request({ url: absent, headers: credentials.get('owner') });
      expect(seen.statusCode).toBe(404);
      expect(seen.json()).toEqual(none.json());
    }
    const hiddenTeam = await t.request({ method: 'PUT', url: `/api/v1/teams/${fixture.team.id}`, headers: credentials.get('stranger'), payload: { name: 'x' } });
    const absentTeam = await t.request({ method: 'PUT', url: `/api/v1/teams/${missing}`, headers: credentials.get('owner'), payload: { name: 'x' } });
    expect(hiddenTeam.json()).toEqual(absentTeam.json());
  });
});
