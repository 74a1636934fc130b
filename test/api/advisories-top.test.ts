import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';

/** OSV records as osv.dev publishes them (schema 1.6). */
function osv(id: string, fields: Record<string, unknown>) {
  return { schema_version: '1.6.0', id, modified: '2024-01-01T00:00:00Z', published: '2023-12-01T00:00:00Z', ...fields };
}

const ADVISORIES = [
  osv('GHSA-35jh-r3h4-6jhm', {
    aliases: ['CVE-2021-23337'],
    summary: 'Command Injection in lodash',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [{ package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }] }],
  }),
  osv('GHSA-29mw-wpgm-hmr9', {
    aliases: ['CVE-2020-28500'],
    summary: 'Regular Expression Denial of Service (ReDoS) in lodash',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L' }],
    affected: [{ package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '4.0.0' }, { fixed: '4.17.21' }] }] }],
  }),
  osv('GHSA-xvch-5gv4-984h', {
    aliases: ['CVE-2021-44906'],
    summary: 'Prototype Pollution in minimist',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [{ package: { ecosystem: 'npm', name: 'minimist', purl: 'pkg:npm/minimist' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' }] }] }],
  }),
];

function cyclonedx(components: { name: string; version: string }[]) {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] } },
    components: components.map((c) => ({ type: 'library', 'bom-ref': `pkg:npm/${c.name}@${c.version}`, purl: `pkg:npm/${c.name}@${c.version}`, ...c })),
  });
}

describe.each(DB_KINDS)('the advisories affecting the most repositories on %s', (kind) => {
  let t: TestApp;
  let owner: { cookie: string };
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    const admin = await t.user('admin', { admin: true });
    owner = await t.user('owner');
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
    const imported = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/json' }, payload: JSON.stringify(ADVISORIES) });
    expect(imported.json()).toMatchObject({ added: 3 });
  });
  afterAll(() => t.close());

  const newRepo = async (name: string) =>
    (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name } })).json().id as string;
  const upload = async (repo: string, body: string) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie: owner.cookie, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
  };
  const top = async (query = '', cookie = owner.cookie) => {
    const res = await t.request({ url: `/api/v1/advisories/top${query}`, headers: { cookie } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ id: string; severity: string; repositories: number }[]>().map((a) => `${a.id} ${a.severity} ${a.repositories}`);
  };

  it('ranks by repositories with an open finding, then severity, within the caller\'s repositories', async () => {
    const web = await newRepo('web');
    const cli = await newRepo('cli');
    await upload(web, cyclonedx([{ name: 'lodash', version: '4.17.20' }, { name: 'minimist', version: '1.2.5' }]));
    await upload(cli, cyclonedx([{ name: 'minimist', version: '1.2.5' }]));

    expect(await top()).toEqual([
      'GHSA-xvch-5gv4-984h critical 2',
      'GHSA-35jh-r3h4-6jhm high 1',
      'GHSA-29mw-wpgm-hmr9 medium 1',
    ]);
    expect(await top('?limit=1')).toEqual(['GHSA-xvch-5gv4-984h critical 2']);
    expect(await top('', (await t.user('stranger')).cookie)).toEqual([]);

    // An upgrade past the fixed version fixes the finding: that repository no longer counts.
    await upload(cli, cyclonedx([{ name: 'minimist', version: '1.2.6' }]));
    expect(await top('?limit=1')).toEqual(['GHSA-xvch-5gv4-984h critical 1']);
    await upload(web, cyclonedx([{ name: 'lodash', version: '4.17.21' }, { name: 'minimist', version: '1.2.5' }]));
    expect(await top()).toEqual(['GHSA-xvch-5gv4-984h critical 1']);
  });

  it('puts advisories in the KEV catalogue first, by any of their names', async () => {
    const api = await newRepo('api');
    await upload(api, cyclonedx([{ name: 'lodash', version: '4.17.20' }]));
    expect(await top()).toEqual(['GHSA-xvch-5gv4-984h critical 1', 'GHSA-35jh-r3h4-6jhm high 1', 'GHSA-29mw-wpgm-hmr9 medium 1']);
    // The catalogue as CISA publishes it (known_exploited_vulnerabilities.json), listing the ReDoS by its CVE.
    const kev = JSON.stringify({
      title: 'CISA Catalog of Known Exploited Vulnerabilities', catalogVersion: '2025.03.14', dateReleased: '2025-03-14T17:59:45.3694Z', count: 1,
      vulnerabilities: [{
        cveID: 'CVE-2020-28500', vendorProject: 'Lodash', product: 'Lodash', vulnerabilityName: 'Lodash Regular Expression Denial of Service Vulnerability',
        dateAdded: '2025-03-14', shortDescription: 'Lodash contains a regular expression denial of service vulnerability in its toNumber, trim and trimEnd functions.',
        requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
        dueDate: '2025-04-04', knownRansomwareCampaignUse: 'Unknown', notes: 'https://nvd.nist.gov/vuln/detail/CVE-2020-28500', cwes: ['CWE-1333'],
      }],
    });
    const admin = await t.user('admin', { admin: true });
    const imported = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: admin.cookie, 'content-type': 'application/json' }, payload: kev });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(await top()).toEqual(['GHSA-29mw-wpgm-hmr9 medium 1', 'GHSA-xvch-5gv4-984h critical 1', 'GHSA-35jh-r3h4-6jhm high 1']);
  });

  it('refuses a limit out of bounds with a problem', async () => {
    for (const limit of ['0', '51', 'x']) {
      const res = await t.request({ url: `/api/v1/advisories/top?limit=${limit}`, headers: { cookie: owner.cookie } });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
  });
});
