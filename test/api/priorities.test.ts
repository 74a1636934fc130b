import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { LOG4SHELL } from '../support/osv.js';
import { sarifLog } from '../support/sarif.js';
import { importPath } from '../../src/advisories/import-path.js';


/** The CISA catalogue as published at known_exploited_vulnerabilities.json (two entries and a broken one). */
function kevCatalogue(cves: string[]) {
  const entries: Record<string, unknown> = {
    'CVE-2021-44228': {
      cveID: 'CVE-2021-44228', vendorProject: 'Apache', product: 'Log4j2', vulnerabilityName: 'Apache Log4j2 Remote Code Execution Vulnerability',
      dateAdded: '2021-12-10', shortDescription: 'Apache Log4j2 contains a vulnerability where JNDI features do not protect against attacker-controlled JNDI-related endpoints, allowing for remote code execution.',
      requiredAction: 'For all affected software assets for which updates exist, the only acceptable remediation actions are: 1) Apply updates; OR 2) remove affected assets from agency networks.',
      dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known', notes: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44228', cwes: ['CWE-20', 'CWE-400', 'CWE-502'],
    },
    'CVE-2014-0160': {
      cveID: 'CVE-2014-0160', vendorProject: 'OpenSSL', product: 'OpenSSL', vulnerabilityName: 'OpenSSL Information Disclosure Vulnerability',
      dateAdded: '2022-05-04', shortDescription: 'The TLS and DTLS implementations in OpenSSL do not properly handle Heartbeat Extension packets.',
      requiredAction: 'Apply updates per vendor instructions.', dueDate: '2022-05-25', knownRansomwareCampaignUse: 'Unknown',
      notes: 'https://nvd.nist.gov/vuln/detail/CVE-2014-0160', cwes: ['CWE-125'],
    },
  };
  const vulnerabilities = [...cves.map((cve) => entries[cve]), { cveID: 'not-a-cve', vendorProject: 'x' }];
  return JSON.stringify({
    title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: '2025.03.14', dateReleased: '2025-03-14T17:59:45.3694Z',
    count: vulnerabilities.length, vulnerabilities,
  });
}

/** A day of FIRST's epss_scores-YYYY-MM-DD.csv. */
const EPSS = [
  '#model_version:v2025.03.14,score_date:2025-03-20T12:55:00Z',
  'cve,epss,percentile',
  'CVE-2014-0160,0.94466,0.99983',
  'CVE-2021-44228,0.94358,0.99957',
  'CVE-2023-1234,0.00043,0.11951',
  'CVE-2024-0001,not-a-number,0.5',
  '',
].join('\n');

function cyclonedx(components: { name: string; version: string; purl: string }[]) {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] } },
    components: components.map((c) => ({ type: 'library', 'bom-ref': c.purl, ...c })),
  });
}

interface Finding { rule_id: string; tool: string; kev: boolean; epss: { probability: number; percentile: number } | null }

describe.each(DB_KINDS)('KEV and EPSS on %s', (kind) => {
  let t: TestApp;
  let admin: { cookie: string };
  let owner: { cookie: string };
  let repo: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    admin = await t.user('admin', { admin: true });
    owner = await t.user('owner');
    const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    repo = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'shop' } })).json().id;
  });
  afterAll(() => t.close());

  const importBody = (body: string | Buffer, cookie = admin.cookie, contentType = 'application/octet-stream') => t.request({
    method: 'POST', url: '/api/v1/advisories/import', headers: { cookie, 'content-type': contentType }, payload: body,
  });
  const upload = async (body: string) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie: owner.cookie, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie: owner.cookie } })).json();
  };
  const findings = async (query = '') => {
    const res = await t.request({ url: `/api/v1/repos/${repo}/findings${query}`, headers: { cookie: owner.cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return { total: Number(res.headers['x-total-count']), items: res.json<Finding[]>() };
  };
  const scanner = sarifLog([
    { rule: 'CVE-2021-44228', file: 'pom.xml', securitySeverity: 10 },
    { rule: 'CVE-2023-1234', file: 'package-lock.json', securitySeverity: 5 },
    { rule: 'CVE-2020-9999', file: 'package-lock.json', securitySeverity: 7 },
  ], 'Trivy');

  it('imports the KEV catalogue and an EPSS CSV (gzip or not), told apart by content, site administrators only', async () => {
    expect((await importBody(kevCatalogue(['CVE-2021-44228']), owner.cookie)).statusCode).toBe(403);
    const kev = await importBody(kevCatalogue(['CVE-2021-44228', 'CVE-2014-0160']), admin.cookie, 'application/json');
    expect(kev.statusCode, kev.body).toBe(200);
    expect(kev.json()).toEqual({
      added: 0, updated: 0, withdrawn: 0, unchanged: 0, rematch_queued: 0, kev: 2, epss: null,
      rejected: [{ file: 'body:vulnerabilities[2]', reason: 'cveID is not a CVE id' }], rejected_total: 1,
    });
    const epss = await importBody(gzipSync(EPSS));
    expect(epss.statusCode, epss.body).toBe(200);
    expect(epss.json()).toMatchObject({ kev: null, epss: 3, rejected: [{ file: 'body:6', reason: 'epss and percentile must be numbers from 0 to 1' }] });

    const broken = await importBody('#model_version:v2025.03.14,score_date:2025-03-20T12:55:00Z\nCVE-2021-44228,0.9,0.9\n');
    expect(broken.statusCode).toBe(400);
    expect(broken.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(broken.json().detail).toMatch(/header/);
    // A failed import leaves the earlier scores in place.
    expect(await t.db.kysely.selectFrom('epss_scores').select('cve').orderBy('cve').execute()).toHaveLength(3);
  });

  it('gives findings kev and epss through their rule id and the advisory database\'s aliases; filters kev and sorts by epss', async () => {
    expect((await importBody(JSON.stringify(LOG4SHELL))).json()).toMatchObject({ added: 1 });
    await upload(cyclonedx([{ name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' }]));
    await upload(scanner);

    const all = await findings();
    const byTool = (f: Finding) => `${f.tool}:${f.rule_id}`;
    expect(Object.fromEntries(all.items.map((f) => [byTool(f), { kev: f.kev, epss: f.epss }]))).toEqual({
      'advisories:GHSA-jfh8-c2jp-5v3q': { kev: true, epss: { probability: 0.94358, percentile: 0.99957 } },
      'Trivy:CVE-2021-44228': { kev: true, epss: { probability: 0.94358, percentile: 0.99957 } },
      'Trivy:CVE-2023-1234': { kev: false, epss: { probability: 0.00043, percentile: 0.11951 } },
      'Trivy:CVE-2020-9999': { kev: false, epss: null },
    });

    const listed = await findings('?kev=true');
    expect(listed.total).toBe(2);
    expect(listed.items.map(byTool).sort()).toEqual(['Trivy:CVE-2021-44228', 'advisories:GHSA-jfh8-c2jp-5v3q']);
    expect((await findings('?kev=false')).items.map(byTool).sort()).toEqual(['Trivy:CVE-2020-9999', 'Trivy:CVE-2023-1234']);
    expect((await findings('?kev=true&tool=Trivy')).items.map(byTool)).toEqual(['Trivy:CVE-2021-44228']);

    // Highest probability first, unscored last; severity (then id) breaks ties.
    const sorted = await findings('?sort=epss');
    expect(sorted.items.map(byTool).slice(2)).toEqual(['Trivy:CVE-2023-1234', 'Trivy:CVE-2020-9999']);
    expect(sorted.items.slice(0, 2).every((f) => f.epss?.probability === 0.94358)).toBe(true);
    expect((await findings('?sort=epss&per_page=1&page=4')).items.map(byTool)).toEqual(['Trivy:CVE-2020-9999']);
    expect((await t.request({ url: `/api/v1/repos/${repo}/findings?sort=cvss`, headers: { cookie: owner.cookie } })).statusCode).toBe(400);
  });

  it('fails the fail_on_kev gate on an open finding in the catalogue, and passes once the catalogue drops it', async () => {
    const policy = await t.request({ method: 'PUT', url: `/api/v1/repos/${repo}/policy`, headers: { cookie: owner.cookie }, payload: { fail_on_kev: true } });
    expect(policy.statusCode, policy.body).toBe(200);
    const failed = await upload(scanner);
    expect(failed.gate.status).toBe('fail');
    expect(failed.gate.violations).toEqual([expect.objectContaining({
      rule: 'fail_on_kev', count: 2, examples: ['GHSA-jfh8-c2jp-5v3q in log4j-core@2.14.1', 'CVE-2021-44228 at pom.xml:1'],
    })]);

    // A new catalogue replaces the old one: Log4Shell is no longer listed.
    expect((await importBody(kevCatalogue(['CVE-2014-0160']))).json()).toMatchObject({ kev: 1 });
    expect((await findings('?kev=true')).total).toBe(0);
    expect((await upload(scanner)).gate).toEqual({ status: 'pass', violations: [] });
  });

  it('imports KEV and gzipped EPSS files from the command line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'priorities-'));
    try {
      fs.writeFileSync(path.join(dir, 'known_exploited_vulnerabilities.json'), kevCatalogue(['CVE-2021-44228', 'CVE-2014-0160']));
      fs.writeFileSync(path.join(dir, 'epss_scores-2025-03-20.csv.gz'), gzipSync(EPSS.replace('0.94358', '0.5')));
      const report = await importPath(t.db.kysely, dir, { maxInflatedBytes: 1 << 20, maxEntries: 10 });
      expect(report).toMatchObject({ kev: 2, epss: 3 });
      const log4shell = (await findings('?kev=true&tool=Trivy')).items;
      expect(log4shell).toEqual([expect.objectContaining({ rule_id: 'CVE-2021-44228', kev: true, epss: { probability: 0.5, percentile: 0.99957 } })]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
