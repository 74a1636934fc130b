import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { LOG4SHELL } from '../support/osv.js';

/** Grype 0.41's CycloneDX XML report of a Log4Shell-era repository: log4j-core 2.13.2 with CVE-2021-44228 (byte-exact from the corpus). */
const GRYPE = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/corpus/cyclonedx/grype-0.41.0-log4j-1.4.cdx.xml'));
/** OWASP Dependency-Check 7.1.0's SARIF: one vulnerable package, named by purl (byte-exact from the corpus). */
const DEPENDENCY_CHECK = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/corpus/sarif/dependency-check-7.1.0.sarif'));
/** CodeQL 2.2.4's SARIF: two XSS results, no package. */
const CODEQL = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/corpus/sarif/codeql-2.2.4-js-xss.sarif'));


interface Counts { open: number; critical: number; high: number }
interface Group { names: string[]; package: string; severity: string; state: string; tools: string[]; finding_ids: string[] }

describe.each(DB_KINDS)('one vulnerability, many names, on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let orgId: string;
  let repo: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const admin = await t.user('admin', { admin: true });
    ({ cookie: owner } = await t.user('owner'));
    const imported = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/json' }, payload: JSON.stringify(LOG4SHELL) });
    expect(imported.json()).toMatchObject({ added: 1 });
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner }, payload: { name: 'acme' } })).json().id;
    repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name: 'shop' } })).json().id;
  });
  afterAll(() => t.close());

  const status = async (of = repo) => (await t.request({ url: `/api/v1/repos/${of}/status`, headers: { cookie: owner } })).json<{ findings: Counts; vulnerabilities: Counts }>();
  const groups = async (query = '') => {
    const res = await t.request({ url: `/api/v1/repos/${repo}/findings?group=vulnerability${query}`, headers: { cookie: owner } });
    expect(res.statusCode, res.body).toBe(200);
    return { total: Number(res.headers['x-total-count']), items: res.json<Group[]>() };
  };

  it('counts CVE-2021-44228 and GHSA-jfh8-c2jp-5v3q in log4j-core, from the scanner and the advisory database, as one critical', async () => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie: owner, 'content-type': 'application/xml' }, payload: GRYPE });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    const findings = (await t.request({ url: `/api/v1/repos/${repo}/findings?per_page=100`, headers: { cookie: owner } })).json<{ rule_id: string; tool: string }[]>();
    const log4j = findings.filter((f) => ['CVE-2021-44228', 'GHSA-jfh8-c2jp-5v3q'].includes(f.rule_id));
    expect(log4j.map((f) => `${f.tool} ${f.rule_id}`).sort()).toEqual(['Grype CVE-2021-44228', 'Grype GHSA-jfh8-c2jp-5v3q', 'advisories GHSA-jfh8-c2jp-5v3q']);

    const { findings: perFinding, vulnerabilities } = await status();
    // Grype names it twice (by CVE and by GHSA) and the advisory database once more: three findings, one vulnerability.
    expect(perFinding.critical).toBeGreaterThanOrEqual(3);
    expect(vulnerabilities.critical).toBe(perFinding.critical - 2);

    const { items } = await groups('&severity=critical');
    const log4shell = items.find((g) => g.names.includes('CVE-2021-44228'))!;
    expect(log4shell).toMatchObject({
      names: ['CVE-2021-44228', 'GHSA-jfh8-c2jp-5v3q'], package: 'pkg:maven/org.apache.logging.log4j/log4j-core',
      severity: 'critical', state: 'open', tools: ['Grype', 'advisories'],
    });
    expect(log4shell.finding_ids).toHaveLength(3);
    expect(items.filter((g) => g.names.includes('GHSA-jfh8-c2jp-5v3q'))).toHaveLength(1);
  });

  it('counts a vulnerability dismissed everywhere as not open, and pages and filters the groups', async () => {
    const all = await groups('&state=all&per_page=1');
    expect(all.items).toHaveLength(1);
    expect(all.total).toBeGreaterThanOrEqual(1);
    const { items } = await groups('&severity=critical');
    const log4shell = items.find((g) => g.names.includes('CVE-2021-44228'))!;
    const before = (await status()).vulnerabilities.critical;
    const triage = await t.request({
      method: 'POST', url: `/api/v1/repos/${repo}/findings/triage`, headers: { cookie: owner },
      payload: { ids: log4shell.finding_ids, triage: { state: 'dismissed', reason: 'accepted_risk', comment: 'JNDI lookups are disabled by -Dlog4j2.formatMsgNoLookups=true' } },
    });
    expect(triage.statusCode, triage.body).toBe(200);
    expect((await status()).vulnerabilities.critical).toBe(before - 1);
    expect((await groups('&state=dismissed')).items.map((g) => g.names)).toContainEqual(['CVE-2021-44228', 'GHSA-jfh8-c2jp-5v3q']);
    expect((await groups('&tool=nothing')).total).toBe(0);
  });

  it('refuses the filters that do not apply to groups', async () => {
    const res = await t.request({ url: `/api/v1/repos/${repo}/findings?group=vulnerability&q=log4j`, headers: { cookie: owner } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });

  it('keeps the count through uploads that change no package finding, and follows those that fix or reopen one', async () => {
    const web = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner }, payload: { name: 'web' } })).json().id;
    const upload = async (body: Buffer | string) => {
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${web}/upload`, headers: { cookie: owner, 'content-type': 'application/json' }, payload: body });
      expect(res.statusCode, res.body).toBe(202);
      await t.drain();
      return status(web);
    };
    const first = await upload(DEPENDENCY_CHECK);
    expect(first.vulnerabilities.open).toBe(1);
    // Another tool's results, none naming a package: the vulnerability is still open, and counted once.
    const withCodeQl = await upload(CODEQL);
    expect(withCodeQl.findings.open).toBe(first.findings.open + 2);
    expect(withCodeQl.vulnerabilities).toEqual(first.vulnerabilities);
    // Dependency-Check again, with no results: nothing in it names a package, but the finding it fixed did.
    const fixed = JSON.parse(DEPENDENCY_CHECK.toString('utf8')) as { runs: { results: unknown[] }[] };
    fixed.runs[0]!.results = [];
    const after = await upload(JSON.stringify(fixed));
    expect(after.findings.open).toBe(2);
    expect(after.vulnerabilities.open).toBe(0);
    // It comes back (reopened), and the same file again changes nothing.
    expect((await upload(DEPENDENCY_CHECK)).vulnerabilities).toEqual(first.vulnerabilities);
    expect((await upload(DEPENDENCY_CHECK)).vulnerabilities).toEqual(first.vulnerabilities);
  });
});
