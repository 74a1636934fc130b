import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMaintenance } from '../../src/maintenance.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';
import { quietLog } from '../support/scans.js';

/**
 * Tables that grow with use (every upload, finding, component, delivery, advisory). A statement that
 * reads one of them whole costs more with every CI run: findings.new and a VEX upload read every
 * finding of every repository, inside each upload's ingest transaction, until this test found them.
 */
const GROWING = ['findings', 'components', 'uploads', 'upload_contents', 'analyses', 'refs', 'dismissals', 'vex_statements',
  'webhook_deliveries', 'advisories', 'advisory_packages', 'advisory_aliases', 'audit_events'];

/** Whole reads that are the point of the request, each with why. */
const ALLOWED: [RegExp, string][] = [
  [/^delete from "upload_contents" where ("blob_url" is null and )?exists/, 'hourly: the raw bytes kept are the retention\'s worth, and this is how old ones go'],
  [/^select count\(\*\) as "n" from "advisories"$/, 'the whole advisory list\'s total is every advisory: the smallest index, counted (3 ms per 100,000)'],
  [/^select "advisories"\.\* from "advisories" order by "advisories"\."modified" desc, "advisories"\."id" limit/, 'walks advisories_modified in the list\'s order and stops at the page'],
];

/**
 * SQLite plans by its indexes alone (no statistics), so its plan for a statement is the same on an
 * empty database and a full one: every statement the service prepared during a day in the life of a
 * repository is planned here, and none may scan a growing table.
 */
describe('query plans on SQLite', () => {
  let t: TestApp;
  const prepared = new Set<string>();
  const prepare = SQLite.prototype.prepare;

  beforeAll(async () => {
    t = await createTestApp('sqlite', { SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true' });
    SQLite.prototype.prepare = function (this: SQLite.Database, source: string) {
      prepared.add(source);
      return prepare.call(this, source);
    } as typeof prepare;
    await aDayInTheLife(t);
  });

  afterAll(async () => {
    SQLite.prototype.prepare = prepare;
    await t.close();
  });

  it('reads no growing table whole', () => {
    if (t.config.database.kind !== 'sqlite') throw new Error('planned on SQLite only');
    const planner = new SQLite(t.config.database.file, { readonly: true });
    const scans: string[] = [];
    for (const source of prepared) {
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(source) || ALLOWED.some(([pattern]) => pattern.test(source))) continue;
      const parameters = new Array((source.match(/\?/g) ?? []).length).fill(null);
      const plan = planner.prepare(`explain query plan ${source}`).all(...parameters) as { detail: string }[];
      const whole = plan.filter((step) => GROWING.some((table) => new RegExp(`^SCAN ${table}\\b`).test(step.detail)));
      if (whole.length > 0) scans.push(`${whole.map((step) => step.detail).join('; ')}\n  ${source.replace(/\s+/g, ' ').slice(0, 300)}`);
    }
    planner.close();
    // Enough statements to know the flows ran (uploads, triage, webhooks, gates, advisories, reads).
    expect(prepared.size).toBeGreaterThan(150);
    expect(scans, scans.join('\n')).toEqual([]);
  });
});

/** An org with a webhook and a policy; SARIF uploads that open, fix and reopen; an SBOM matched to an advisory; VEX; triage; a pull request; the reads; housekeeping; deletes. */
async function aDayInTheLife(t: TestApp): Promise<void> {
  const admin = await t.user('admin', { admin: true });
  const api = orgClient(t);
  const org = await api.createOrg(admin.cookie, 'plans');
  const repo = await api.createRepo(admin.cookie, org.id, { name: 'service' });
  const call = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown, contentType?: string) => {
    const res = await t.request({
      method, url, headers: { cookie: admin.cookie, ...(contentType ? { 'content-type': contentType } : {}) },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return res;
  };
  const upload = async (body: string, query = '') => {
    await call('POST', `/api/v1/repos/${repo.id}/upload${query}`, body, 'application/octet-stream');
    await t.drain();
  };

  await call('POST', `/api/v1/orgs/${org.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', secret: 'a-webhook-secret-of-some-length', events: ['upload.completed', 'findings.new', 'upload.failed'] });
  await call('PUT', `/api/v1/repos/${repo.id}/policy`, { fail_on_new: 'high', max_open: { critical: 0 } });
  await call('POST', '/api/v1/advisories/import', JSON.stringify({
    schema_version: '1.6.0', id: 'GHSA-35jh-r3h4-6jhm', modified: '2024-01-01T00:00:00Z', published: '2021-02-15T00:00:00Z',
    aliases: ['CVE-2021-23337'], summary: 'Command Injection in lodash',
    affected: [{ package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }] }],
  }), 'application/json');

  const a = { rule: 'js/sql-injection', file: 'src/db.js', level: 'error' as const };
  const b = { rule: 'js/xss', file: 'src/view.js', level: 'warning' as const };
  await upload(sarifLog([a, b]));
  await upload(sarifLog([b]));
  await upload(sarifLog([a, b]));
  await upload('{"version": "2.1.0", "runs": [', '?format=sarif');
  await upload(sarifLog([a]), '?ref=refs/pull/7/merge');
  await upload(JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.5', version: 1,
    components: [{ type: 'library', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20', 'bom-ref': 'pkg:npm/lodash@4.17.20' }],
  }));
  await upload(JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79', version: 1,
    vulnerabilities: [{ id: 'CVE-2021-23337', analysis: { state: 'false_positive', detail: 'Never called with user input.' }, affects: [{ ref: 'pkg:npm/lodash@4.17.20' }] }],
  }));

  const findings = (await call('GET', `/api/v1/repos/${repo.id}/findings?state=all&per_page=100`)).json<{ id: string; first_upload_id: string }[]>();
  await call('PATCH', `/api/v1/findings/${findings[0]!.id}`, { state: 'dismissed', reason: 'wont_fix', comment: 'Legacy code' });
  const uploads = (await call('GET', `/api/v1/repos/${repo.id}/uploads`)).json<{ id: string }[]>();
  for (const url of [
    `/api/v1/repos/${repo.id}`, `/api/v1/repos/${repo.id}/status`, `/api/v1/repos/${repo.id}/status?ref=refs/pull/7/merge`,
    `/api/v1/repos/${repo.id}/findings`, `/api/v1/repos/${repo.id}/findings?severity=high&tool=TestScanner`,
    `/api/v1/repos/${repo.id}/findings?state=fixed`, `/api/v1/repos/${repo.id}/findings?group=vulnerability`,
    `/api/v1/repos/${repo.id}/findings?introduced_in=${findings[0]!.first_upload_id}`, `/api/v1/repos/${repo.id}/findings?fixed_in=${uploads[0]!.id}`,
    `/api/v1/repos/${repo.id}/findings?reopened_in=${uploads[0]!.id}`, `/api/v1/repos/${repo.id}/findings?ref=refs/pull/7/merge&vs_base=new`,
    `/api/v1/repos/${repo.id}/findings?ref=refs/pull/7/merge&vs_base=fixed`, `/api/v1/repos/${repo.id}/findings?kev=true&sort=epss`,
    `/api/v1/findings/${findings[0]!.id}`, `/api/v1/findings/${findings[0]!.id}/history`,
    `/api/v1/repos/${repo.id}/components`, `/api/v1/components?purl=pkg:npm/lodash`, `/api/v1/repos/${repo.id}/analyses`,
    `/api/v1/repos/${repo.id}/refs`, `/api/v1/repos/${repo.id}/gate`, `/api/v1/repos/${repo.id}/vex?format=openvex`,
    `/api/v1/uploads/${uploads[0]!.id}`, `/api/v1/orgs/${org.id}/repos`, `/api/v1/orgs`, `/api/v1/advisories/top`,
    `/api/v1/advisories/GHSA-35jh-r3h4-6jhm`, `/api/v1/advisories?ecosystem=npm&package=lodash`, '/api/v1/advisories', '/api/v1/advisories?ecosystem=npm',
    '/api/v1/advisories?package=lodash', `/api/v1/orgs/${org.id}/audit`,
    `/api/v1/orgs/${org.id}/audit?actor=admin`, `/api/v1/audit?actor=${admin.user.id}`,
  ]) await call('GET', url);
  // Metrics: past due judged per finding (the repository's own policy has another SLA than its org's),
  // then counted by the database (the same SLA everywhere).
  await call('PUT', `/api/v1/orgs/${org.id}/sla`, { critical: 7, high: 30 });
  const metrics = [`/api/v1/orgs/${org.id}/metrics/summary`, `/api/v1/orgs/${org.id}/metrics?interval=week`, `/api/v1/repos/${repo.id}/metrics/summary`, `/api/v1/repos/${repo.id}/metrics`];
  for (const url of metrics) await call('GET', url);
  await call('PUT', `/api/v1/repos/${repo.id}/policy`, { fail_on_new: 'high', max_open: { critical: 0 }, max_age_days: { critical: 7, high: 30 } });
  for (const url of metrics) await call('GET', url);
  // A member of an org with base_role "none" who holds the repository through a team: every read
  // above filtered by their roles (the hot reads with the team role, the lists by readableBy).
  const member = await t.user('member');
  await api.setMember(admin.cookie, org.id, member.user.id, 'member');
  await call('PUT', `/api/v1/orgs/${org.id}`, { base_role: 'none' });
  const team = await api.createTeam(admin.cookie, org.id, { name: 'holders', members: [member.user.id] });
  await call('PUT', `/api/v1/teams/${team.id}/repos/${repo.id}`, { role: 'triage' });
  await call('GET', `/api/v1/teams/${team.id}/repos`);
  for (const url of [
    `/api/v1/repos/${repo.id}`, `/api/v1/repos/${repo.id}/status`, `/api/v1/repos/${repo.id}/status?ref=refs/pull/7/merge`,
    `/api/v1/repos/${repo.id}/findings`, `/api/v1/orgs/${org.id}/repos`, `/api/v1/orgs/${org.id}`, `/api/v1/orgs`,
    `/api/v1/repos/lookup?org=plans&name=service`, `/api/v1/components?purl=pkg:npm/lodash`, `/api/v1/advisories/top`,
    `/api/v1/advisories/GHSA-35jh-r3h4-6jhm`, `/api/v1/teams/${team.id}/repos`,
    `/api/v1/orgs/${org.id}/metrics/summary`, `/api/v1/orgs/${org.id}/metrics?team=${team.id}`, `/api/v1/orgs/${org.id}/metrics/summary?team=${team.id}`,
  ]) {
    const res = await t.request({ url, headers: { cookie: member.cookie } });
    if (res.statusCode !== 200) throw new Error(`GET ${url} answered the member ${res.statusCode}: ${res.body}`);
  }
  await runMaintenance(t.app.services, quietLog);
  // Deleting: a repository with results, then an org with one.
  const gone = await api.createRepo(admin.cookie, org.id, { name: 'retired' });
  await call('POST', `/api/v1/repos/${gone.id}/upload`, sarifLog([a]), 'application/octet-stream');
  await t.drain();
  await call('DELETE', `/api/v1/repos/${gone.id}`);
  const other = await api.createOrg(admin.cookie, 'plans-retired');
  const its = await api.createRepo(admin.cookie, other.id, { name: 'service' });
  await call('POST', `/api/v1/repos/${its.id}/upload`, sarifLog([b]), 'application/octet-stream');
  await t.drain();
  await call('DELETE', `/api/v1/orgs/${other.id}`);
}
