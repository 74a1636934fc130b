import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient, type Org, type Repo, type Team } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';

/**
 * Every endpoint of orgs, repos (and their analyses), teams and members, called by every kind of caller. A session or
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

/**
 * What an endpoint needs: any caller, one allowed to create orgs, an org reader, an org manager, or
 * an owner reading what only owners see (webhooks), or a site administrator changing what belongs
 * to the whole site (advisory imports, the site's audit log): a key narrowed to some orgs is refused
 * even its administrator's, since these reach every org.
 */
type Rule = 'signed-in' | 'create-org' | 'read' | 'manage' | 'owner-read' | 'site-admin-write' | 'site-admin-read' | 'triage' | 'manage-session';

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
  'owner-read': [401,  404,     403,   OK,   OK,     404,  404, 404,  403,  403, 404,  OK,   OK,  404,  OK,   OK,  404],
  'site-admin-write': [401, 403, 403,  403,  OK,     403,  403, 403,  403,  403, 403,  403,  403, 403,  OK,   403, 403],
  'site-admin-read': [401,  403,     403,   403,  OK,     403,  403, 403,  403,  403, 403,  403,  403, 403,  OK,   OK,  403],
  triage:       [401,  404,     OK,    OK,   OK,     404,  403, 404,  OK,   403, 404,  OK,   403, 404,  OK,   403, 404],
  // Owners in a browser session only (minting a SCIM token): any API key is refused before the org is looked at.
  'manage-session': [401, 404,   403,   OK,   OK,     403,  403, 403,  403,  403, 403,  403,  403, 403,  403,  403, 403],
};

interface Fixture {
  org: Org;
  repo: Repo;
  team: Team;
  webhook: { id: string };
  /** A finding of the shared repository. */
  finding: { id: string };
  /** Things some requests consume (a deleted repo cannot be deleted again): made fresh per call. */
  fresh: {
    org(): Promise<Org>;
    repo(): Promise<Repo>;
    team(): Promise<Team>;
    signedInUser(): Promise<string>;
    member(): Promise<string>;
    /** An analysis of the shared repository (one upload, processed). */
    analysis(): Promise<string>;
    webhook(): Promise<{ id: string }>;
    /** A suppression rule of the shared org that matches nothing. */
    suppression(): Promise<{ id: string }>;
    /** A finished delivery of the shared webhook, which may be sent again. */
    finishedDelivery(): Promise<string>;
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
  { route: 'POST /orgs/{id}/scim-token', rule: 'manage-session', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/scim-token` }) },
  { route: 'DELETE /orgs/{id}/members/{user_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/members/${await f.fresh.member()}` }) },
  { route: 'GET /repos/{id}/refs', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/refs` }) },
  { route: 'GET /repos/{id}/status?ref=', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/status?ref=refs/heads/main` }) },
  { route: 'GET /repos/{id}/findings?ref=', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/findings?ref=main` }) },
  { route: 'GET /repos/{id}/analyses', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/analyses` }) },
  { route: 'DELETE /repos/{id}/analyses/{analysis_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/repos/${f.repo.id}/analyses/${await f.fresh.analysis()}` }) },
  { route: 'GET /repos/lookup', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/lookup?org=${encodeURIComponent(f.org.name)}&name=${f.repo.name}` }) },
  { route: 'GET /orgs/{id}/policy', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/policy` }) },
  { route: 'PUT /orgs/{id}/policy', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/policy`, payload: { fail_on_new: 'critical' } }) },
  { route: 'GET /repos/{id}/policy', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/policy` }) },
  { route: 'PUT /repos/{id}/policy', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/repos/${f.repo.id}/policy`, payload: { inherit: true } }) },
  { route: 'GET /repos/{id}/gate', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/gate` }) },
  { route: 'POST /repos/{id}/badge-token', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/repos/${f.repo.id}/badge-token` }) },
  { route: 'GET /orgs/{id}/webhooks', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/webhooks` }) },
  { route: 'POST /orgs/{id}/webhooks', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/webhooks`, payload: { url: 'https://93.184.215.14/in', secret: 'matrix-secret', events: ['upload.completed'] } }) },
  { route: 'GET /orgs/{id}/webhooks/{webhook_id}', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}` }) },
  { route: 'PUT /orgs/{id}/webhooks/{webhook_id}', rule: 'manage', ok: 200, request: async (f) => ({ method: 'PUT', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}`, payload: { min_severity: 'high' } }) },
  { route: 'DELETE /orgs/{id}/webhooks/{webhook_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/webhooks/${(await f.fresh.webhook()).id}` }) },
  { route: 'GET /orgs/{id}/webhooks/{webhook_id}/deliveries', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}/deliveries` }) },
  { route: 'POST /orgs/{id}/webhooks/{webhook_id}/ping', rule: 'manage', ok: 202, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}/ping` }) },
  { route: 'POST /orgs/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', rule: 'manage', ok: 202, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/webhooks/${f.webhook.id}/deliveries/${await f.fresh.finishedDelivery()}/redeliver` }) },
  { route: 'GET /advisories', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories?q=GHSA' }) },
  { route: 'GET /components', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/components?ecosystem=npm' }) },
  { route: 'GET /advisories/top', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories/top' }) },
  { route: 'GET /advisories/sources', rule: 'site-admin-read', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories/sources' }) },
  { route: 'POST /advisories/import', rule: 'site-admin-write', ok: 200, request: async () => ({ method: 'POST', url: '/api/v1/advisories/import', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ id: 'GHSA-matr-ixxx-test', modified: '2024-01-01T00:00:00Z', affected: [] }) }) },
  // After the import above, which stores the record it reads.
  { route: 'GET /advisories/{id}', rule: 'signed-in', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/advisories/GHSA-matr-ixxx-test' }) },
  { route: 'GET /findings/{id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/findings/${f.finding.id}` }) },
  { route: 'GET /findings/{id}/history', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/findings/${f.finding.id}/history` }) },
  { route: 'GET /repos/{id}/vex', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/repos/${f.repo.id}/vex?format=openvex` }) },
  { route: 'PATCH /findings/{id}', rule: 'triage', ok: 200, request: async (f) => ({ method: 'PATCH', url: `/api/v1/findings/${f.finding.id}`, payload: { state: 'dismissed', reason: 'wont_fix' } }) },
  { route: 'POST /repos/{id}/findings/triage', rule: 'triage', ok: 200, request: async (f) => ({ method: 'POST', url: `/api/v1/repos/${f.repo.id}/findings/triage`, payload: { ids: [f.finding.id], triage: { state: 'dismissed', reason: 'wont_fix' } } }) },
  { route: 'GET /orgs/{id}/suppressions', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/suppressions` }) },
  { route: 'POST /orgs/{id}/suppressions', rule: 'manage', ok: 201, request: async (f) => ({ method: 'POST', url: `/api/v1/orgs/${f.org.id}/suppressions`, payload: { rule_id: f.unique(), reason: 'wont_fix' } }) },
  { route: 'GET /orgs/{id}/suppressions/{suppression_id}', rule: 'read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/suppressions/${(await f.fresh.suppression()).id}` }) },
  { route: 'DELETE /orgs/{id}/suppressions/{suppression_id}', rule: 'manage', ok: 204, request: async (f) => ({ method: 'DELETE', url: `/api/v1/orgs/${f.org.id}/suppressions/${(await f.fresh.suppression()).id}` }) },
  { route: 'GET /orgs/{id}/audit', rule: 'owner-read', ok: 200, request: async (f) => ({ method: 'GET', url: `/api/v1/orgs/${f.org.id}/audit` }) },
  { route: 'GET /audit', rule: 'site-admin-read', ok: 200, request: async () => ({ method: 'GET', url: '/api/v1/audit' }) },
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
    const sharedRepo = await api.createRepo(owner!.cookie, org.id, { name: 'shared-repo' });
    const makeWebhook = async () => {
      const res = await t.request({
        method: 'POST', url: `/api/v1/orgs/${org.id}/webhooks`, headers: { cookie: owner!.cookie },
        payload: { url: 'https://93.184.215.14/in', secret: 'matrix-secret', events: ['upload.completed'] },
      });
      if (res.statusCode !== 201) throw new Error(`creating a webhook failed: ${res.statusCode} ${res.body}`);
      return res.json<{ id: string }>();
    };
    const webhook = await makeWebhook();
    const findingUpload = await t.request({
      method: 'POST', url: `/api/v1/repos/${sharedRepo.id}/upload?category=matrix`,
      headers: { cookie: owner!.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r', file: 'a.js' }]),
    });
    if (findingUpload.statusCode !== 202) throw new Error(`upload failed: ${findingUpload.statusCode} ${findingUpload.body}`);
    await t.drain();
    const finding = (await t.request({ url: `/api/v1/repos/${sharedRepo.id}/findings`, headers: { cookie: owner!.cookie } })).json<{ id: string }[]>()[0]!;
    fixture = {
      org,
      repo: sharedRepo,
      team: await api.createTeam(owner!.cookie, org.id, { name: 'shared-team', members: [member!.user.id] }),
      webhook,
      finding,
      fresh: {
        webhook: makeWebhook,
        suppression: async () => {
          const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${org.id}/suppressions`, headers: { cookie: owner!.cookie }, payload: { rule_id: unique(), reason: 'wont_fix' } });
          if (res.statusCode !== 201) throw new Error(`creating a suppression failed: ${res.statusCode} ${res.body}`);
          return res.json<{ id: string }>();
        },
        finishedDelivery: async () => {
          // Its ping, as if it had been attempted and given up (nothing is sent in this test).
          const row = await t.db.kysely.updateTable('webhook_deliveries').set({ status: 'failed' })
            .where('webhook_id', '=', webhook.id).returning('id').executeTakeFirstOrThrow();
          return row.id;
        },
        org: makeOrg,
        repo: () => api.createRepo(owner!.cookie, org.id, { name: unique() }),
        team: () => api.createTeam(owner!.cookie, org.id, { name: unique() }),
        signedInUser: async () => (await t.user(unique())).user.id,
        member: async () => {
          const { user } = await t.user(unique());
          await api.setMember(owner!.cookie, org.id, user.id, 'member');
          return user.id;
        },
        analysis: async () => {
          const category = unique();
          const upload = await t.request({
            method: 'POST', url: `/api/v1/repos/${sharedRepo.id}/upload?category=${category}`,
            headers: { cookie: owner!.cookie, 'content-type': 'application/sarif+json' }, payload: sarifLog([{ rule: 'r', file: 'a.js' }]),
          });
          if (upload.statusCode !== 202) throw new Error(`upload failed: ${upload.statusCode} ${upload.body}`);
          await t.drain();
          const analyses = (await t.request({ url: `/api/v1/repos/${sharedRepo.id}/analyses?per_page=100`, headers: { cookie: owner!.cookie } })).json<{ id: string; category: string }[]>();
          return analyses.find((a) => a.category === category)!.id;
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
      [`/api/v1/orgs/${fixture.org.id}/webhooks/${fixture.webhook.id}`, `/api/v1/orgs/${missing}/webhooks/${fixture.webhook.id}`],
      [`/api/v1/repos/${fixture.repo.id}`, `/api/v1/repos/${missing}`],
      [`/api/v1/repos/${fixture.repo.id}/refs`, `/api/v1/repos/${missing}/refs`],
      [`/api/v1/repos/${fixture.repo.id}/status?ref=pr/1`, `/api/v1/repos/${missing}/status?ref=pr/1`],
      [`/api/v1/repos/${fixture.repo.id}/analyses`, `/api/v1/repos/${missing}/analyses`],
      [`/api/v1/repos/lookup?org=${encodeURIComponent(fixture.org.name)}&name=${fixture.repo.name}`, `/api/v1/repos/lookup?org=${encodeURIComponent(fixture.org.name)}&name=no-such-repo`],
      [`/api/v1/repos/${fixture.repo.id}/gate`, `/api/v1/repos/${missing}/gate`],
      [`/api/v1/findings/${fixture.finding.id}`, `/api/v1/findings/${missing}`],
      [`/api/v1/orgs/${fixture.org.id}/policy`, `/api/v1/orgs/${missing}/policy`],
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
