import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { openDatabase, type Db } from '../../src/db/index.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';

const CRITICAL = 9.5;
const HIGH = 7.5;
const MEDIUM = 5;

function sbom(components: { name: string; licenses?: string[] }[]): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.5', version: 1,
    components: components.map((c) => ({
      type: 'library', name: c.name, version: '1.0.0', purl: `pkg:npm/${c.name}@1.0.0`,
      ...(c.licenses ? { licenses: c.licenses.map((expression) => ({ expression })) } : {}),
    })),
  });
}

describe.each(DB_KINDS)('policies and gates on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let member: { cookie: string };
  let orgId: string;
  let key: string;
  let repoCount = 0;

  beforeAll(async () => {
    t = await createTestApp(kind);
    owner = await t.user('owner');
    const memberUser = await t.user('member');
    member = memberUser;
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/members/${memberUser.user.id}`, headers: { cookie: owner.cookie }, payload: { role: 'member' } });
    key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
  });
  afterAll(() => t.close());

  const as = (cookie: string) => ({ cookie });
  const newRepo = async () => (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: as(owner.cookie), payload: { name: `repo-${++repoCount}` } })).json().id as string;
  const putOrgPolicy = (policy: unknown, cookie = owner.cookie) =>
    t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/policy`, headers: as(cookie), payload: policy as Record<string, unknown> });
  const putRepoPolicy = (repoId: string, policy: unknown) =>
    t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}/policy`, headers: as(owner.cookie), payload: policy as Record<string, unknown> });
  const send = async (repoId: string, body: string) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    return res.json().id as string;
  };
  const processed = async (repoId: string, body: string) => {
    const id = await send(repoId, body);
    await t.drain();
    return (await t.request({ url: `/api/v1/uploads/${id}`, headers: as(member.cookie) })).json();
  };
  const results = (...severities: number[]): string =>
    sarifLog(severities.map((s, i): SarifResultSpec => ({ rule: `R${s}-${i}`, file: `src/f${i}.ts`, securitySeverity: s })));

  describe('an organization policy', () => {
    it('is empty until an owner sets it, and members read it', async () => {
      const res = await t.request({ url: `/api/v1/orgs/${orgId}/policy`, headers: as(member.cookie) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({});
    });

    it('is replaced by an owner and read back as written', async () => {
      const policy = {
        max_open: { critical: 0, high: 10 }, fail_on_new: 'high', fail_on_kev: true, max_age_days: { critical: 7, high: 30 },
        licenses: { deny: ['AGPL-3.0-only', 'GPL-3.0-or-later'], allow: null, unknown: 'warn' },
      };
      const res = await putOrgPolicy(policy);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(policy);
      expect((await t.request({ url: `/api/v1/orgs/${orgId}/policy`, headers: as(member.cookie) })).json()).toEqual(policy);
      await putOrgPolicy({});
    });

    it('records who changed it in the audit log', async () => {
      await putOrgPolicy({ fail_on_new: 'critical' });
      const audit = (await t.request({ url: `/api/v1/orgs/${orgId}/audit`, headers: as(owner.cookie) })).json();
      expect(audit[0]).toMatchObject({ action: 'policy.updated', actor: { login: 'owner' }, target: { type: 'org', id: orgId } });
      await putOrgPolicy({});
    });

    it('is not changed by a member', async () => {
      expect((await putOrgPolicy({ fail_on_new: 'low' }, member.cookie)).statusCode).toBe(403);
    });

    it.each([
      [{ max_open: { critical: -1 } }, '/max_open/critical'],
      [{ max_open: { severe: 1 } }, '/max_open/severe'],
      [{ fail_on_new: 'severe' }, '/fail_on_new'],
      [{ fail_on_kev: 'yes' }, '/fail_on_kev'],
      [{ max_age_days: { high: 0 } }, '/max_age_days/high'],
      [{ licenses: { unknown: 'ignore' } }, '/licenses/unknown'],
      [{ licenses: { deny: ['MIT', 'GPL'] } }, '/licenses/deny/1'],
      [{ licenses: { allow: ['MIT OR Apache-2.0'] } }, '/licenses/allow/0'],
      [{ licenses: { deny: ['NOASSERTION'] } }, '/licenses/deny/0'],
      [{ max_open: { critical: 0 }, surprise: true }, '/surprise'],
    ])('refuses %j with 400 naming %s', async (policy, path) => {
      const res = await putOrgPolicy(policy);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().errors.map((e: { path: string }) => e.path)).toContain(path);
      expect((await t.request({ url: `/api/v1/orgs/${orgId}/policy`, headers: as(owner.cookie) })).json()).toEqual({});
    });
  });

  describe('a repository policy', () => {
    it('inherits by default, may be its own, and may inherit again', async () => {
      const repoId = await newRepo();
      const read = async () => (await t.request({ url: `/api/v1/repos/${repoId}/policy`, headers: as(member.cookie) })).json();
      expect(await read()).toEqual({ inherit: true });
      const own = await putRepoPolicy(repoId, { max_open: { high: 3 } });
      expect(own.statusCode, own.body).toBe(200);
      expect(own.json()).toEqual({ inherit: false, max_open: { high: 3 } });
      expect(await read()).toEqual({ inherit: false, max_open: { high: 3 } });
      expect((await putRepoPolicy(repoId, { inherit: true })).json()).toEqual({ inherit: true });
      expect(await read()).toEqual({ inherit: true });
    });

    it('refuses rules beside inherit: true, naming them', async () => {
      const repoId = await newRepo();
      const res = await putRepoPolicy(repoId, { inherit: true, fail_on_new: 'high' });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ path: '/fail_on_new', message: 'must be absent when inherit is true' }]);
    });
  });

  describe('the gate', () => {
    it('judges each upload by the policy of its time and keeps the result on it', async () => {
      const repoId = await newRepo();
      await putOrgPolicy({ fail_on_new: 'high' });
      const first = await processed(repoId, results(MEDIUM));
      expect(first.status).toBe('complete');
      expect(first.gate).toEqual({ status: 'pass', violations: [] });

      const second = await processed(repoId, results(MEDIUM, CRITICAL));
      expect(second.changes.new).toEqual({ critical: 1, high: 0, medium: 0, low: 0, info: 0 });
      expect(second.gate.status).toBe('fail');
      expect(second.gate.violations).toEqual([expect.objectContaining({ rule: 'fail_on_new', level: 'fail', count: 1, examples: [`R${CRITICAL}-1 at src/f1.ts:1`] })]);

      // The same findings again: nothing new, so the gate passes; the earlier verdict stays as it was.
      const third = await processed(repoId, results(MEDIUM, CRITICAL));
      expect(third.gate).toEqual({ status: 'pass', violations: [] });
      const list = (await t.request({ url: `/api/v1/repos/${repoId}/uploads`, headers: as(member.cookie) })).json();
      expect(list.map((u: { gate: { status: string } }) => u.gate.status)).toEqual(['pass', 'fail', 'pass']);

      // Fixed, then back: a reopened finding counts as brought by the upload.
      const fixing = await processed(repoId, results(MEDIUM));
      expect(fixing.changes).toEqual({
        new: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
        reopened: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
        fixed: { critical: 1, high: 0, medium: 0, low: 0, info: 0 },
      });
      const reopened = await processed(repoId, results(MEDIUM, CRITICAL));
      expect(reopened.counts.reopened).toBe(1);
      expect(reopened.changes.reopened.critical).toBe(1);
      expect(reopened.gate.violations.map((v: { rule: string }) => v.rule)).toEqual(['fail_on_new']);
      await putOrgPolicy({});
    });

    it('judges a pull request\'s new findings against its base branch, not its previous push', async () => {
      const repoId = await newRepo();
      await putRepoPolicy(repoId, { fail_on_new: 'high' });
      const onMain = sarifLog([{ rule: 'known', file: 'src/a.ts', securitySeverity: CRITICAL }]);
      expect((await processed(repoId, onMain)).gate.status).toBe('fail');
      const pr = async (specs: SarifResultSpec[]) => {
        const res = await t.request({
          method: 'POST', url: `/api/v1/repos/${repoId}/upload?ref=refs/pull/7/merge&base_ref=main`,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: sarifLog(specs),
        });
        expect(res.statusCode, res.body).toBe(202);
        await t.drain();
        return (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: as(member.cookie) })).json();
      };
      const known = { rule: 'known', file: 'src/a.ts', securitySeverity: CRITICAL };
      const brought = { rule: 'brought', file: 'src/b.ts', line: 3, securitySeverity: HIGH };

      // The first push carries main's critical: new to the pull request's own analysis, not brought by it.
      const first = await pr([known]);
      expect(first.changes.new.critical).toBe(1);
      expect(first.gate).toEqual({ status: 'pass', violations: [] });

      const second = await pr([known, brought]);
      expect(second.gate.status).toBe('fail');
      expect(second.gate.violations).toEqual([expect.objectContaining({ rule: 'fail_on_new', count: 1, examples: ['brought at src/b.ts:3'] })]);
      expect(second.gate.violations[0].message).toContain('not open on main');

      // Nothing changed since the previous push, but the pull request still brings the high one.
      const third = await pr([known, brought]);
      expect(third.counts.new).toBe(0);
      expect(third.vs_base).toEqual({ new: 1, fixed: 0 });
      expect(third.gate.status).toBe('fail');

      // Once main has it too, the pull request brings nothing.
      await processed(repoId, sarifLog([known, brought]));
      expect((await pr([known, brought])).gate).toEqual({ status: 'pass', violations: [] });
    });

    it('follows a repository policy over its organization\'s', async () => {
      const repoId = await newRepo();
      await putOrgPolicy({ fail_on_new: 'high' });
      await putRepoPolicy(repoId, { fail_on_new: 'critical' });
      expect((await processed(repoId, results(HIGH))).gate.status).toBe('pass');
      await putRepoPolicy(repoId, { inherit: true });
      expect((await processed(repoId, results(HIGH, HIGH))).gate.status).toBe('fail');
      await putOrgPolicy({});
    });

    it('keeps no gate on a failed upload', async () => {
      const repoId = await newRepo();
      const failed = await processed(repoId, '{"version": "2.1.0", "runs": "not a list"}');
      expect(failed.status).toBe('failed');
      expect(failed.gate).toBeNull();
      expect(failed.changes).toBeNull();
    });

    it('judges the repository now: open limits and ages', async () => {
      const repoId = await newRepo();
      await putRepoPolicy(repoId, { max_open: { critical: 0, high: 5 }, max_age_days: { high: 30 } });
      await processed(repoId, results(CRITICAL, HIGH, HIGH));
      const gate = async () => (await t.request({ url: `/api/v1/repos/${repoId}/gate`, headers: as(member.cookie) })).json();
      const now = await gate();
      expect(now).toMatchObject({ repository_id: repoId, status: 'fail', policy_source: 'repository', policy: { max_open: { critical: 0, high: 5 } } });
      expect(now.violations.map((v: { rule: string; count: number }) => [v.rule, v.count])).toEqual([['max_open', 1]]);
      expect(now.violations[0].message).toBe('1 open critical finding; the policy allows 0.');

      // Two high findings first seen 40 days ago are past their 30 days.
      const longAgo = new Date(Date.now() - 40 * 86_400_000).toISOString();
      await t.db.kysely.updateTable('findings').set({ created_at: longAgo }).where('repository_id', '=', repoId).where('severity', '=', 'high').execute();
      const later = await gate();
      expect(later.violations.map((v: { rule: string; count: number }) => [v.rule, v.count])).toEqual([['max_open', 1], ['max_age_days', 2]]);
      expect(later.violations[1].examples[0]).toContain(`open since ${longAgo.slice(0, 10)}`);
    });

    it('fails the repository and its badge while the latest upload on the default branch brought what fail_on_new forbids', async () => {
      const repoId = await newRepo();
      await putRepoPolicy(repoId, { fail_on_new: 'high' });
      const { token } = (await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/badge-token`, headers: as(owner.cookie) })).json();
      const gate = async () => (await t.request({ url: `/api/v1/repos/${repoId}/gate`, headers: as(member.cookie) })).json();
      const badge = async () => /<title>([^<]*)<\/title>/.exec((await t.request({ url: `/badge/${repoId}/gate.svg?token=${token}` })).body)?.[1];

      const first = await processed(repoId, results(MEDIUM));
      expect(await gate()).toMatchObject({ status: 'pass', violations: [], upload_id: first.id });

      const bringing = await processed(repoId, results(MEDIUM, CRITICAL));
      expect(bringing.gate.status).toBe('fail');
      const failing = await gate();
      expect(failing).toMatchObject({ status: 'fail', upload_id: bringing.id });
      expect(failing.violations).toEqual([expect.objectContaining({ rule: 'fail_on_new', level: 'fail', count: 1, examples: [`R${CRITICAL}-1 at src/f1.ts:1`] })]);
      expect(failing.violations[0].message).toContain(bringing.id);
      expect(await badge()).toBe('gate: failing');

      // Judged before its gate's counts were kept: its changes still count, none named.
      await t.db.kysely.updateTable('uploads').set({ introduced: null }).where('id', '=', bringing.id).execute();
      expect((await gate()).violations).toEqual([expect.objectContaining({ rule: 'fail_on_new', count: 1, examples: [] })]);

      // An SBOM judged later holds other results: the SARIF upload's verdict still stands.
      expect((await processed(repoId, sbom([{ name: 'plain', licenses: ['MIT'] }]))).gate.status).toBe('pass');
      expect(await gate()).toMatchObject({ status: 'fail', upload_id: bringing.id });

      // The stored counts are judged by the policy as it is now.
      await putRepoPolicy(repoId, { fail_on_new: 'critical' });
      expect((await gate()).status).toBe('fail');
      await putRepoPolicy(repoId, {});
      expect(await gate()).toMatchObject({ status: 'pass', violations: [] });
      expect(await badge()).toBe('gate: passing');
      await putRepoPolicy(repoId, { fail_on_new: 'high' });
      expect((await gate()).status).toBe('fail');

      const fixing = await processed(repoId, results(MEDIUM));
      expect(fixing.gate.status).toBe('pass');
      expect(await gate()).toMatchObject({ status: 'pass', violations: [], upload_id: fixing.id });
      expect(await badge()).toBe('gate: passing');
    });

    it('fails the repository and its badge on max_age_days as time passes, with no upload', async () => {
      const repoId = await newRepo();
      await putRepoPolicy(repoId, { max_age_days: { high: 1 } });
      const { token } = (await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/badge-token`, headers: as(owner.cookie) })).json();
      const uploaded = await processed(repoId, results(HIGH));
      expect(uploaded.gate.status).toBe('pass');
      const gate = async () => (await t.request({ url: `/api/v1/repos/${repoId}/gate`, headers: as(member.cookie) })).json();
      expect((await gate()).status).toBe('pass');
      // Only Date is set; timers, and so the database drivers, run as usual.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 2 * 86_400_000);
        const later = await gate();
        expect(later).toMatchObject({ status: 'fail', upload_id: uploaded.id });
        expect(later.violations).toEqual([expect.objectContaining({ rule: 'max_age_days', count: 1 })]);
        expect((await t.request({ url: `/badge/${repoId}/gate.svg?token=${token}` })).body).toContain('gate: failing');
      } finally {
        vi.useRealTimers();
      }
    });

    it('judges component licences with SPDX semantics, unknown ones as a warning', async () => {
      const repoId = await newRepo();
      await putRepoPolicy(repoId, { licenses: { deny: ['GPL-3.0-or-later'], unknown: 'warn' } });
      const choice = await processed(repoId, sbom([{ name: 'dual', licenses: ['MIT OR GPL-3.0-or-later'] }, { name: 'plain', licenses: ['MIT'] }]));
      expect(choice.gate).toEqual({ status: 'pass', violations: [] });

      const unknown = await processed(repoId, sbom([{ name: 'dual', licenses: ['MIT OR GPL-3.0-or-later'] }, { name: 'mystery', licenses: ['LicenseRef-acme'] }]));
      expect(unknown.gate.status).toBe('warn');
      expect(unknown.gate.violations).toEqual([expect.objectContaining({ rule: 'licenses.unknown', level: 'warn', examples: ['pkg:npm/mystery@1.0.0 (LicenseRef-acme)'] })]);

      const both = await processed(repoId, sbom([{ name: 'both', licenses: ['MIT AND GPL-3.0-or-later'] }]));
      expect(both.gate.status).toBe('fail');
      expect(both.gate.violations).toEqual([expect.objectContaining({ rule: 'licenses.deny', count: 1, examples: ['pkg:npm/both@1.0.0 (MIT AND GPL-3.0-or-later)'] })]);
    });

    it('accepts fail_on_kev, which passes while no open finding is in the KEV catalogue', async () => {
      const repoId = await newRepo();
      await putRepoPolicy(repoId, { fail_on_kev: true });
      expect((await processed(repoId, results(CRITICAL))).gate).toEqual({ status: 'pass', violations: [] });
    });
  });

  describe('finding a repository by name', () => {
    it('answers org/name ignoring case, and 400 when a name is missing', async () => {
      const repoId = await newRepo();
      const res = await t.request({ url: `/api/v1/repos/lookup?org=ACME&name=REPO-${repoCount}`, headers: as(member.cookie) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: repoId, org_id: orgId, name: `repo-${repoCount}` });
      expect((await t.request({ url: '/api/v1/repos/lookup?org=acme', headers: as(member.cookie) })).statusCode).toBe(400);
      expect((await t.request({ url: '/api/v1/repos/lookup?org=other&name=repo-1', headers: as(member.cookie) })).statusCode).toBe(404);
    });
  });

  describe('waiting for an upload', () => {
    it('answers at once when the upload is already settled', async () => {
      const repoId = await newRepo();
      const done = await processed(repoId, results(MEDIUM));
      const started = Date.now();
      const res = await t.request({ url: `/api/v1/uploads/${done.id}?wait=30`, headers: as(member.cookie) });
      expect(res.json().status).toBe('complete');
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('wakes as soon as a worker completes the upload', async () => {
      const repoId = await newRepo();
      const id = await send(repoId, results(HIGH));
      const started = Date.now();
      const waiting = t.request({ url: `/api/v1/uploads/${id}?wait=30`, headers: as(member.cookie) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await t.drain();
      const res = await waiting;
      expect(res.json()).toMatchObject({ id, status: 'complete', gate: { status: 'pass' } });
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('answers with the upload as it stands when the time is up', async () => {
      const repoId = await newRepo();
      const id = await send(repoId, results(HIGH));
      const started = Date.now();
      const res = await t.request({ url: `/api/v1/uploads/${id}?wait=1`, headers: as(member.cookie) });
      const elapsed = Date.now() - started;
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('pending');
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(elapsed).toBeLessThan(3000);
      await t.drain();
    });

    it.each(['61', '-1', 'soon', '1.5'])('refuses wait=%s with 400', async (wait) => {
      const res = await t.request({ url: `/api/v1/uploads/0190a3b2-0000-7000-8000-000000000000?wait=${wait}`, headers: as(member.cookie) });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].path).toBe('/query/wait');
    });

    it('answers waiting requests at once when the server shuts down', async () => {
      const otherDb: Db = openDatabase(t.config.database);
      const other: App = await buildApp({ config: t.config, db: otherDb, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
      const repoId = await newRepo();
      const id = await send(repoId, results(HIGH));
      const started = Date.now();
      const waiting = other.inject({ url: `/api/v1/uploads/${id}?wait=30`, headers: { ...as(member.cookie), host: 'localhost:8080' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.close();
      const res = await waiting;
      await otherDb.close();
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('pending');
      expect(Date.now() - started).toBeLessThan(3000);
      await t.drain();
    });

    // Only PostgreSQL can be shared by two instances; on SQLite this case does not exist.
    if (kind === 'postgres') it('learns through the database when another instance completes the upload', async () => {
      const otherDb: Db = openDatabase(t.config.database);
      const other: App = await buildApp({ config: t.config, db: otherDb, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
      try {
        const repoId = await newRepo();
        const id = await send(repoId, results(HIGH));
        const started = Date.now();
        const waiting = t.request({ url: `/api/v1/uploads/${id}?wait=30`, headers: as(member.cookie) });
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(await other.services.scans.drain(other.log)).toBe(1);
        const res = await waiting;
        expect(res.json().status).toBe('complete');
        expect(Date.now() - started).toBeLessThan(3000);
      } finally {
        await other.close();
        await otherDb.close();
      }
    });
  });
});
