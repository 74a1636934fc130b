import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';

interface Finding { id: string; rule_id: string; state: string; file_path: string | null }
interface Rule { id: string; findings: number; path: string | null; repositories: string[] | null }
interface Counts { new: number; fixed: number; reopened: number; unchanged: number }

describe.each(DB_KINDS)('suppression rules on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let member: string;
  let orgId: string;
  let repoId: string;
  let otherRepoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie: owner } = await t.user('owner'));
    const api = orgClient(t);
    const org = await api.createOrg(owner, 'rules');
    orgId = org.id;
    const memberUser = await t.user('member');
    member = memberUser.cookie;
    await api.setMember(owner, org.id, memberUser.user.id, 'member');
    repoId = (await api.createRepo(owner, org.id, { name: 'app' })).id;
    otherRepoId = (await api.createRepo(owner, org.id, { name: 'lib' })).id;
  });
  afterAll(() => t.close());

  const upload = async (repo: string, results: SarifResultSpec[]): Promise<Counts> => {
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repo}/upload?category=sast`,
      headers: { cookie: owner, 'content-type': 'application/sarif+json' }, payload: sarifLog(results),
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return (await t.request({ url: res.headers.location as string, headers: { cookie: owner } })).json<{ counts: Counts }>().counts;
  };
  const states = async (repo: string) => {
    const list = (await t.request({ url: `/api/v1/repos/${repo}/findings?state=all&per_page=100`, headers: { cookie: owner } })).json<Finding[]>();
    return Object.fromEntries(list.map((f) => [f.file_path, f.state]));
  };
  const open = async (repo: string) => (await t.request({ url: `/api/v1/repos/${repo}/status`, headers: { cookie: owner } })).json<{ findings: { open: number; dismissed: number } }>().findings;

  it('dismisses current matches at once, catches new ones on upload, and deleting it reopens those still present', async () => {
    await upload(repoId, [
      { rule: 'hardcoded-secret', file: 'test/fixtures/users.js' },
      { rule: 'hardcoded-secret', file: 'test/e2e/login.spec.js' },
      { rule: 'hardcoded-secret', file: 'src/config.js' },
    ]);
    await upload(otherRepoId, [{ rule: 'hardcoded-secret', file: 'test/setup.js' }]);

    const created = await t.request({
      method: 'POST', url: `/api/v1/orgs/${orgId}/suppressions`, headers: { cookie: owner },
      payload: { path: 'test/**', reason: 'used_in_tests', comment: 'Test data', repositories: [repoId] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const rule = created.json<Rule>();
    expect(rule).toMatchObject({ path: 'test/**', repositories: [repoId], findings: 2 });
    expect(created.headers.location).toBe(`/api/v1/orgs/${orgId}/suppressions/${rule.id}`);
    expect(await states(repoId)).toEqual({ 'test/fixtures/users.js': 'dismissed', 'test/e2e/login.spec.js': 'dismissed', 'src/config.js': 'open' });
    expect(await states(otherRepoId)).toEqual({ 'test/setup.js': 'open' });
    expect(await open(repoId)).toEqual({ open: 1, dismissed: 2, critical: 0, high: 0, medium: 1, low: 0, info: 0 });

    // A new match arrives dismissed, not new; one that went away is no longer there to reopen.
    const counts = await upload(repoId, [
      { rule: 'hardcoded-secret', file: 'test/fixtures/users.js' },
      { rule: 'hardcoded-secret', file: 'test/unit/keys.test.js' },
      { rule: 'hardcoded-secret', file: 'src/config.js' },
    ]);
    expect(counts).toMatchObject({ new: 0, fixed: 0, reopened: 0 });
    expect(await states(repoId)).toMatchObject({ 'test/fixtures/users.js': 'dismissed', 'test/unit/keys.test.js': 'dismissed', 'test/e2e/login.spec.js': 'fixed' });
    const listed = (await t.request({ url: `/api/v1/orgs/${orgId}/suppressions`, headers: { cookie: member } })).json<Rule[]>();
    expect(listed.map((r) => [r.id, r.findings])).toEqual([[rule.id, 3]]);
    const found = (await t.request({ url: `/api/v1/findings/${(await t.request({ url: `/api/v1/repos/${repoId}/findings?state=dismissed&q=keys`, headers: { cookie: owner } })).json<Finding[]>()[0]!.id}/history`, headers: { cookie: owner } })).json<{ event: string; reason: string }[]>();
    expect(found.map((e) => [e.event, e.reason])).toEqual([['opened', null], ['dismissed_by_rule', 'used_in_tests']]);

    const deleted = await t.request({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/suppressions/${rule.id}`, headers: { cookie: owner } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await states(repoId)).toEqual({ 'test/fixtures/users.js': 'open', 'test/unit/keys.test.js': 'open', 'test/e2e/login.spec.js': 'fixed', 'src/config.js': 'open' });
    expect(await open(repoId)).toMatchObject({ open: 3, dismissed: 0 });
    // The fixed one does not come back dismissed either.
    await upload(repoId, [{ rule: 'hardcoded-secret', file: 'test/e2e/login.spec.js' }]);
    expect((await states(repoId))['test/e2e/login.spec.js']).toBe('open');
    const audit = (await t.request({ url: `/api/v1/orgs/${orgId}/audit`, headers: { cookie: owner } })).json<{ action: string }[]>();
    expect(audit.map((e) => e.action).filter((a) => a.startsWith('suppression.'))).toEqual(['suppression.deleted', 'suppression.created']);
  });

  it('matches by tool, rule, purl prefix and advisory; members read, owners manage; a rule naming nothing is refused', async () => {
    const create = (payload: Record<string, unknown>, cookie = owner) => t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/suppressions`, headers: { cookie }, payload });
    expect((await create({ rule_id: 'x', reason: 'wont_fix' }, member)).statusCode).toBe(403);
    expect((await create({ reason: 'wont_fix' })).statusCode).toBe(400);
    expect((await create({ path: 'x', reason: 'suppressed' })).statusCode).toBe(400);
    expect((await create({ path: 'x', reason: 'wont_fix', repositories: ['0190a3b2-0000-7000-8000-000000000000'] })).statusCode).toBe(400);
    const rule = await create({ tool: 'testscanner', rule_id: 'HARDCODED-SECRET', reason: 'accepted_risk' });
    expect(rule.statusCode, rule.body).toBe(201);
    expect(Object.values(await states(otherRepoId))).toEqual(['dismissed']);
    const id = rule.json<Rule>().id;
    expect((await t.request({ url: `/api/v1/orgs/${orgId}/suppressions/${id}`, headers: { cookie: member } })).json<Rule>().findings).toBeGreaterThan(0);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/suppressions/${id}`, headers: { cookie: member } })).statusCode).toBe(403);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/suppressions/${id}`, headers: { cookie: owner } })).statusCode).toBe(204);
    expect((await t.request({ url: `/api/v1/orgs/${orgId}/suppressions/${id}`, headers: { cookie: owner } })).statusCode).toBe(404);
  });
});
