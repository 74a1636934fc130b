import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { importPath } from '../../src/advisories/import-path.js';
import { refuseAdvisory } from '../support/osv.js';

/** OSV records as osv.dev publishes them (schema 1.6). */
function osv(id: string, fields: Record<string, unknown>) {
  return { schema_version: '1.6.0', id, modified: '2024-01-01T00:00:00Z', published: '2023-12-01T00:00:00Z', ...fields };
}

const LODASH = osv('GHSA-35jh-r3h4-6jhm', {
  aliases: ['CVE-2021-23337'],
  summary: 'Command Injection in lodash',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }],
  affected: [{
    package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' },
    ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
    database_specific: { source: 'https://github.com/github/advisory-database/blob/main/advisories/github-reviewed/2021/02/GHSA-35jh-r3h4-6jhm/GHSA-35jh-r3h4-6jhm.json' },
  }],
  references: [
    { type: 'ADVISORY', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337' },
    { type: 'WEB', url: 'https://github.com/lodash/lodash/blob/ddfd9b11a0126db2302cb70ec9973b66baec0975/lodash.js#L14851' },
    // Anyone can publish a record: a reference that is no web page is never stored, so never linked.
    { type: 'PACKAGE', url: 'javascript:alert(document.cookie)' },
  ],
  database_specific: { severity: 'HIGH', cwe_ids: ['CWE-77', 'CWE-94'], github_reviewed: true },
});

const REQUESTS = osv('PYSEC-2023-74', {
  aliases: ['CVE-2023-32681', 'GHSA-j8r2-6x86-q33q'],
  summary: 'Unintended leak of Proxy-Authorization header in requests',
  affected: [{
    package: { ecosystem: 'PyPI', name: 'requests', purl: 'pkg:pypi/requests' },
    ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.3.0' }, { fixed: '2.31.0' }] }],
    versions: ['2.3.0', '2.30.0'],
  }],
});

/** A later advisory against a package the repositories already have. */
const MINIMIST = osv('GHSA-xvch-5gv4-984h', {
  aliases: ['CVE-2021-44906'],
  summary: 'Prototype Pollution in minimist',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
  affected: [{
    package: { ecosystem: 'npm', name: 'minimist', purl: 'pkg:npm/minimist' },
    ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' }] }],
  }],
});

function cyclonedx(components: { name: string; version: string; purl: string }[]) {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
    metadata: { tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] } },
    components: components.map((c) => ({ type: 'library', 'bom-ref': c.purl, ...c })),
  });
}

function spdx(packages: { name: string; version: string; purl: string }[]) {
  return JSON.stringify({
    spdxVersion: 'SPDX-2.3', dataLicense: 'CC0-1.0', SPDXID: 'SPDXRef-DOCUMENT', name: 'app', documentNamespace: 'https://example.com/app-1',
    creationInfo: { created: '2024-01-01T00:00:00Z', creators: ['Tool: syft-1.0.0'] },
    packages: packages.map((p, i) => ({
      name: p.name, SPDXID: `SPDXRef-Package-${i}`, versionInfo: p.version, downloadLocation: 'NOASSERTION',
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: p.purl }],
    })),
  });
}

interface Finding { rule_id: string; state: string; severity: string; tool: string; aliases: string[]; fixed_versions: string[] | null; package: { name: string; version: string; purl: string } | null }

describe.each(DB_KINDS)('advisories on %s', (kind) => {
  let t: TestApp;
  let admin: { cookie: string };
  let owner: { cookie: string };
  let orgId: string;
  beforeAll(async () => {
    // A hook on a local address is only created, never reached: what it would be sent is read from its deliveries.
    t = await createTestApp(kind, { SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true' });
    admin = await t.user('admin', { admin: true });
    owner = await t.user('owner');
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id;
  });
  afterAll(() => t.close());

  const newRepo = async (name: string) =>
    (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name } })).json().id as string;
  const importAdvisories = (body: unknown, cookie = admin.cookie, contentType = 'application/json') => t.request({
    method: 'POST', url: '/api/v1/advisories/import', headers: { cookie, 'content-type': contentType },
    payload: Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const upload = async (repo: string, body: string) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repo}/upload`, headers: { cookie: owner.cookie, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return (await t.request({ url: `/api/v1/uploads/${res.json().id}`, headers: { cookie: owner.cookie } })).json();
  };
  const findings = async (repo: string, state = 'all') =>
    (await t.request({ url: `/api/v1/repos/${repo}/findings?tool=advisories&state=${state}`, headers: { cookie: owner.cookie } })).json<Finding[]>();
  const status = async (repo: string) =>
    (await t.request({ url: `/api/v1/repos/${repo}/status`, headers: { cookie: owner.cookie } })).json<{ findings: { open: number; high: number; critical: number } }>();

  it('lets only site administrators import, and reports each record; a newer `modified` replaces, an older one does not', async () => {
    expect((await importAdvisories(LODASH, owner.cookie)).statusCode).toBe(403);
    // Refused before the body is read: a body the import could not read is refused all the same.
    const notGzip = await t.request({ method: 'POST', url: '/api/v1/advisories/import', headers: { cookie: owner.cookie, 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: Buffer.from('\x1f\x8bnot gzip') });
    expect(notGzip.statusCode, notGzip.body).toBe(403);
    const first = await importAdvisories([LODASH, REQUESTS, { id: 'BROKEN-1' }, osv('BAD-2', { modified: 'last tuesday' })]);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({
      added: 2, updated: 0, withdrawn: 0, unchanged: 0, rematch_queued: 0, kev: null, epss: null,
      rejected: [{ file: 'body[2]', reason: '"modified" is missing' }, { file: 'body[3]', reason: '"modified" is not an RFC 3339 timestamp' }], rejected_total: 2,
    });
    expect((await importAdvisories(LODASH)).json()).toMatchObject({ added: 0, unchanged: 1 });
    expect((await importAdvisories({ ...LODASH, modified: '2023-01-01T00:00:00Z' })).json()).toMatchObject({ unchanged: 1 });
    expect((await importAdvisories({ ...LODASH, modified: '2024-02-01T00:00:00Z' })).json()).toMatchObject({ updated: 1 });
    // One import holding the same record three times counts each as if imported alone, in order; the newest stays.
    const REPEATED = osv('GHSA-rept-0000-0001', { summary: 'first', affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, versions: ['1.0.0'] }] });
    const repeated = await importAdvisories([REPEATED, { ...REPEATED, summary: 'newer', modified: '2024-03-01T00:00:00Z' }, REPEATED]);
    expect(repeated.json()).toMatchObject({ added: 1, updated: 1, unchanged: 1, rejected: [] });
    const lodash = await t.request({ url: '/api/v1/advisories/CVE-2021-23337', headers: { cookie: owner.cookie } });
    expect(lodash.json().references).toEqual([
      { type: 'ADVISORY', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337' },
      { type: 'WEB', url: 'https://github.com/lodash/lodash/blob/ddfd9b11a0126db2302cb70ec9973b66baec0975/lodash.js#L14851' },
    ]);
    const stored = await t.request({ url: '/api/v1/advisories/GHSA-rept-0000-0001', headers: { cookie: owner.cookie } });
    expect(stored.json()).toMatchObject({ id: 'GHSA-rept-0000-0001', summary: 'newer', modified: '2024-03-01T00:00:00.000Z' });
    const empty = await importAdvisories(Buffer.alloc(0), admin.cookie, 'application/zip');
    expect(empty.statusCode).toBe(400);
    expect(empty.headers['content-type']).toContain('application/problem+json');
    const corrupt = await importAdvisories(Buffer.from('PK\u0003\u0004 this is no zip'), admin.cookie, 'application/zip');
    expect(corrupt.statusCode).toBe(400);
    expect(corrupt.json().detail).toMatch(/zip cannot be read/);
    for (const body of ['not a zip', '{', 'null']) {
      const unreadable = await importAdvisories(Buffer.from(body), admin.cookie, 'application/zip');
      expect(unreadable.statusCode, body).toBe(400);
      expect(unreadable.json().detail).toMatch(/^The advisories could not be read: (not valid JSON|holds null)/);
    }
  });

  it('imports a zip laid out like OSV\'s all.zip, rejecting its bad files by name', async () => {
    const zip = zipSync({
      'GHSA-35jh-r3h4-6jhm.json': strToU8(JSON.stringify(LODASH)),
      'broken.json': strToU8('{"id": '),
      'README.txt': strToU8('not an advisory'),
    });
    const res = await importAdvisories(Buffer.from(zip), admin.cookie, 'application/zip');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ unchanged: 1, rejected: [{ file: 'body:broken.json', reason: expect.stringMatching(/^not valid JSON/) }] });
  });

  it('imports a zip of more records than a batch holds, reading its files as the batches take them', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 1200; i++) files[`LAZY-${String(i).padStart(4, '0')}.json`] = strToU8(JSON.stringify(osv(`LAZY-${i}`, {})));
    files['LAZY-0300.json'] = strToU8(JSON.stringify({ id: 'LAZY-300' }));
    files['LAZY-0900.json'] = strToU8('[');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-'));
    try {
      const file = path.join(dir, 'all.zip');
      fs.writeFileSync(file, zipSync(files, { level: 1 }));
      // The limits are the directory's to say: a refused zip saves nothing.
      expect(await importPath(t.db.kysely, file, { maxInflatedBytes: 1 << 20, maxEntries: 1000 })).toMatchObject({
        added: 0, rejected: [{ file, reason: 'the zip has more than 1000 JSON files' }],
      });
      const res = await importAdvisories(fs.readFileSync(file), admin.cookie, 'application/zip');
      // Files that cannot be read are listed first, then records that are not OSV, as before files were read lazily.
      expect(res.json()).toMatchObject({
        added: 1198, rejected: [
          { file: 'body:LAZY-0900.json', reason: expect.stringMatching(/^not valid JSON/) },
          { file: 'body:LAZY-0300.json', reason: '"modified" is missing' },
        ],
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('completes a CycloneDX upload with its vulnerabilities, counting what it cannot check', async () => {
    const repo = await newRepo('web');
    const sbom = cyclonedx([
      { name: 'lodash', version: '4.17.15', purl: 'pkg:npm/lodash@4.17.15' },
      { name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' },
      { name: 'checkout', version: 'v4', purl: 'pkg:github/actions/checkout@v4' },
      { name: 'weird', version: 'latest', purl: 'pkg:npm/weird@latest' },
    ]);
    const done = await upload(repo, sbom);
    expect(done).toMatchObject({ status: 'complete', components_unchecked: 2, counts: { new: 1, components: 4 } });
    // The same SBOM again keeps its components' rows, and is matched all the same.
    expect(await upload(repo, sbom)).toMatchObject({ status: 'complete', components_unchecked: 2, counts: { new: 0, fixed: 0, unchanged: 1, components: 4 } });
    const [finding, ...rest] = await findings(repo);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      rule_id: 'GHSA-35jh-r3h4-6jhm', tool: 'advisories', state: 'open', severity: 'high', aliases: ['CVE-2021-23337'],
      fixed_versions: ['4.17.21'], package: { name: 'lodash', version: '4.17.15', purl: 'pkg:npm/lodash@4.17.15' },
    });
    expect((await status(repo)).findings).toMatchObject({ open: 1, high: 1 });

    // Still affected after an upgrade: the same finding stays open. Past the fix: fixed.
    expect(await upload(repo, cyclonedx([{ name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' }]))).toMatchObject({ counts: { new: 0, fixed: 0 } });
    expect((await findings(repo, 'open')).map((f) => f.package?.version)).toEqual(['4.17.20']);
    expect(await upload(repo, cyclonedx([{ name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' }]))).toMatchObject({ counts: { fixed: 1 } });
    expect(await findings(repo, 'open')).toEqual([]);
    expect((await status(repo)).findings.open).toBe(0);
  });

  it('fixes the findings of packages an SBOM no longer lists, even when it lists nothing', async () => {
    const repo = await newRepo('emptied');
    await upload(repo, cyclonedx([{ name: 'lodash', version: '4.17.15', purl: 'pkg:npm/lodash@4.17.15' }]));
    expect((await findings(repo, 'open')).map((f) => f.rule_id)).toEqual(['GHSA-35jh-r3h4-6jhm']);
    expect(await upload(repo, cyclonedx([]))).toMatchObject({ status: 'complete', components_unchecked: 0, counts: { fixed: 1 } });
    expect(await findings(repo, 'open')).toEqual([]);
  });

  it('completes an SPDX upload with its vulnerabilities (an exact versions[] entry, PEP 503 names)', async () => {
    const repo = await newRepo('api');
    await upload(repo, spdx([{ name: 'Requests', version: '2.30.0', purl: 'pkg:pypi/Requests@2.30.0' }, { name: 'flask', version: '3.0.0', purl: 'pkg:pypi/flask@3.0.0' }]));
    expect((await findings(repo)).map((f) => [f.rule_id, f.severity, f.aliases, f.fixed_versions])).toEqual([
      ['PYSEC-2023-74', 'medium', ['CVE-2023-32681', 'GHSA-j8r2-6x86-q33q'], ['2.31.0']],
    ]);
  });

  it('a later import opens findings in repositories that uploaded nothing since; withdrawing fixes them', async () => {
    const repo = await newRepo('legacy');
    await upload(repo, cyclonedx([{ name: 'minimist', version: '1.2.5', purl: 'pkg:npm/minimist@1.2.5' }]));
    expect(await findings(repo)).toEqual([]);

    const hook = await t.request({
      method: 'POST', url: `/api/v1/orgs/${orgId}/webhooks`, headers: { cookie: owner.cookie },
      payload: { url: 'http://127.0.0.1:9/hook', secret: 'a-long-enough-shared-secret', events: ['advisory.matched', 'upload.completed'], repository_ids: [repo] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const report = (await importAdvisories(MINIMIST)).json();
    expect(report).toMatchObject({ added: 1, rematch_queued: 1 });
    expect(await t.drain()).toBe(1);
    expect((await findings(repo)).map((f) => [f.rule_id, f.state, f.severity, f.fixed_versions])).toEqual([['GHSA-xvch-5gv4-984h', 'open', 'critical', ['1.2.6']]]);
    expect((await status(repo)).findings).toMatchObject({ open: 1, critical: 1 });
    // The re-match is announced as what it is, not as an upload nobody made.
    const sent = await t.db.kysely.selectFrom('webhook_deliveries').select(['event', 'payload']).where('webhook_id', '=', hook.json().id).where('event', '!=', 'ping').execute();
    expect(sent.map((d) => d.event)).toEqual(['advisory.matched']);
    expect(JSON.parse(sent[0]!.payload)).toMatchObject({
      event: 'advisory.matched', repository: { id: repo, name: 'legacy' },
      data: { new: 1, reopened: 0, advisories: ['GHSA-xvch-5gv4-984h'] },
      findings: { total: 1, by_severity: { critical: 1 }, items: [{ rule_id: 'GHSA-xvch-5gv4-984h', package_name: 'minimist', package_version: '1.2.5' }] },
    });
    await t.request({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/webhooks/${hook.json().id}`, headers: { cookie: owner.cookie } });

    const withdrawn = (await importAdvisories({ ...MINIMIST, modified: '2024-06-01T00:00:00Z', withdrawn: '2024-06-01T00:00:00Z' })).json();
    expect(withdrawn).toMatchObject({ withdrawn: 1, rematch_queued: 1 });
    await t.drain();
    expect((await findings(repo)).map((f) => f.state)).toEqual(['fixed']);
    expect((await status(repo)).findings.open).toBe(0);

    // Neither re-match is an upload: the list holds what the pipeline sent, and the finding's history
    // says which advisory opened and then fixed it, and when each import was made.
    const uploads = (await t.request({ url: `/api/v1/repos/${repo}/uploads`, headers: { cookie: owner.cookie } }));
    expect(uploads.json<{ format: string }[]>().map((u) => u.format)).toEqual(['cyclonedx']);
    expect(uploads.headers['x-total-count']).toBe('1');
    const [finding] = await findings(repo) as (Finding & { id: string })[];
    const history = (await t.request({ url: `/api/v1/findings/${finding!.id}/history`, headers: { cookie: owner.cookie } })).json<{ event: string; upload_id: string | null; advisory: { id: string; imported_at: string } | null }[]>();
    expect(history.map((e) => [e.event, e.upload_id, e.advisory?.id])).toEqual([
      ['opened', null, 'GHSA-xvch-5gv4-984h'], ['fixed', null, 'GHSA-xvch-5gv4-984h'],
    ]);
    expect(Date.parse(history[0]!.advisory!.imported_at)).toBeLessThanOrEqual(Date.parse(history[1]!.advisory!.imported_at));
  });

  it('lists and finds advisories by id or alias, with the caller\'s affected repositories only', async () => {
    const stranger = await t.user('stranger');
    const list = async (query: string, cookie = owner.cookie) =>
      (await t.request({ url: `/api/v1/advisories${query}`, headers: { cookie } })).json<{ id: string }[]>().map((a) => a.id);
    expect(await list('?q=cve-2023-32681')).toEqual(['PYSEC-2023-74']);
    expect(await list('?ecosystem=PyPI')).toEqual(['PYSEC-2023-74']);
    expect(await list('?ecosystem=npm&package=lodash')).toEqual(['GHSA-35jh-r3h4-6jhm']);
    expect(await list('?q=Command+Injection', stranger.cookie)).toEqual(['GHSA-35jh-r3h4-6jhm']);

    const byAlias = await t.request({ url: '/api/v1/advisories/GHSA-j8r2-6x86-q33q', headers: { cookie: owner.cookie } });
    expect(byAlias.statusCode).toBe(200);
    expect(byAlias.json()).toMatchObject({
      id: 'PYSEC-2023-74', severity: 'medium', cvss_score: null,
      affected: [{ ecosystem: 'PyPI', name: 'requests', versions: ['2.3.0', '2.30.0'], ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '2.3.0' }, { fixed: '2.31.0' }] }] }],
      repositories: [{ name: 'api', org: { id: orgId, name: 'acme' }, ref: 'main', package: { name: 'Requests', version: '2.30.0', purl: 'pkg:pypi/Requests@2.30.0' } }],
    });
    const asStranger = await t.request({ url: '/api/v1/advisories/PYSEC-2023-74', headers: { cookie: stranger.cookie } });
    expect(asStranger.json().repositories).toEqual([]);
    const missing = await t.request({ url: '/api/v1/advisories/CVE-1999-0000', headers: { cookie: owner.cookie } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
  });

  it('finds where a package is used across the caller\'s repositories', async () => {
    const stranger = await t.user('outsider');
    const uses = async (query: string, cookie = owner.cookie) => {
      const res = await t.request({ url: `/api/v1/components${query}`, headers: { cookie } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ name: string; version: string; repository: { name: string }; org: { name: string }; ref: string }[]>()
        .map((c) => `${c.org.name}/${c.repository.name}@${c.ref}: ${c.name} ${c.version}`);
    };
    expect(await uses('?purl=pkg:pypi/requests')).toEqual(['acme/api@main: Requests 2.30.0']);
    expect(await uses('?purl=pkg:pypi/requests@2.30.0')).toEqual(['acme/api@main: Requests 2.30.0']);
    expect(await uses('?purl=pkg:pypi/requests@2.31.0')).toEqual([]);
    expect(await uses('?ecosystem=npm')).toEqual(['acme/legacy@main: minimist 1.2.5', 'acme/web@main: lodash 4.17.21']);
    expect(await uses('?name=flask')).toEqual(['acme/api@main: flask 3.0.0']);
    expect(await uses('?advisory=CVE-2023-32681')).toEqual(['acme/api@main: Requests 2.30.0']);
    expect(await uses('?advisory=CVE-1999-0000')).toEqual([]);
    expect(await uses('?ecosystem=PyPI', stranger.cookie)).toEqual([]);
  });

  it('imports a directory of OSV files and zips from the command line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'osv-'));
    try {
      fs.mkdirSync(path.join(dir, 'npm'));
      fs.writeFileSync(path.join(dir, 'npm', 'new.json'), JSON.stringify(osv('GHSA-aaaa-bbbb-cccc', {
        affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { last_affected: '1.3.0' }] }] }],
      })));
      fs.writeFileSync(path.join(dir, 'all.zip'), zipSync({ 'PYSEC-2023-74.json': strToU8(JSON.stringify(REQUESTS)) }));
      fs.writeFileSync(path.join(dir, 'bad.zip'), 'PK\u0003\u0004 broken');
      const report = await importPath(t.db.kysely, dir, { maxInflatedBytes: 1 << 20, maxEntries: 10 });
      expect(report).toMatchObject({ added: 1, unchanged: 1, rejected: [{ file: path.join(dir, 'bad.zip'), reason: expect.stringMatching(/zip cannot be read/) }] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores a record without its NUL characters, and rejects by name one whose id, alias or package name is too long to index', async () => {
    const withNul = osv('GHSA-nul0-0000-0001', {
      aliases: ['CVE-2024-\u00000001'], summary: 'A NUL\u0000 in the summary', details: 'and\u0000 in the details',
      affected: [{ package: { ecosystem: 'npm', name: 'nul\u0000-pkg' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.0\u0000' }] }] }],
    });
    const long = 'x'.repeat(3000);
    const res = await importAdvisories([
      withNul, osv(`GHSA-${long}`, {}), osv('GHSA-long-alia-0001', { aliases: [`CVE-${long}`] }),
      osv('GHSA-long-name-0001', { affected: [{ package: { ecosystem: 'npm', name: long } }] }), osv('GHSA-fine-0000-0001', {}),
    ]);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    expect(res.json()).toMatchObject({
      added: 2, rejected_total: 3, rejected: [
        { file: 'body[1]', reason: '"id" is longer than 200 characters' },
        { file: 'body[2]', reason: '"aliases" is longer than 200 characters' },
        { file: 'body[3]', reason: '"affected[0].package.name" is longer than 500 characters' },
      ],
    });
    const stored = await t.request({ url: '/api/v1/advisories/CVE-2024-0001', headers: { cookie: owner.cookie } });
    expect(stored.json()).toMatchObject({
      id: 'GHSA-nul0-0000-0001', summary: 'A NUL in the summary', details: 'and in the details',
      affected: [{ ecosystem: 'npm', name: 'nul-pkg', ranges: [{ events: [{ introduced: '0' }, { fixed: '1.0.0' }] }] }],
    });
    // The KEV catalogue and EPSS scores are keyed by CVE id too.
    const kev = await importAdvisories({
      catalogVersion: '2025.01.01', vulnerabilities: [{ cveID: `CVE-2024-${'1'.repeat(3000)}` }, { cveID: 'CVE-2024-0002', vendorProject: 'Ven\u0000dor', product: 'p' }],
    });
    expect(kev.statusCode, kev.body.slice(0, 500)).toBe(200);
    expect(kev.json()).toMatchObject({ kev: 1, rejected_total: 1, rejected: [{ file: 'body:vulnerabilities[0]', reason: 'cveID is not a CVE id' }] });
    expect(await t.db.kysely.selectFrom('kev_entries').select(['cve', 'vendor_project']).execute()).toEqual([{ cve: 'CVE-2024-0002', vendor_project: 'Vendor' }]);
    const epss = await importAdvisories(Buffer.from(`cve,epss,percentile\nCVE-2024-${'1'.repeat(3000)},0.5,0.5\nCVE-2024-0002,0.5,0.5\n`), admin.cookie, 'text/csv');
    expect(epss.statusCode, epss.body.slice(0, 500)).toBe(200);
    expect(epss.json()).toMatchObject({ epss: 1, rejected_total: 1, rejected: [{ file: 'body:2', reason: 'cve is not a CVE id' }] });
  });

  it('queues the re-match of each batch it saved, even when a later batch fails', async () => {
    const repo = await newRepo('batches');
    await upload(repo, cyclonedx([{ name: 'batch-pkg', version: '1.0.0', purl: 'pkg:npm/batch-pkg@1.0.0' }]));
    const records = Array.from({ length: 600 }, (_, i) => osv(`GHSA-btch-${String(i).padStart(4, '0')}`, {}));
    records[0] = osv('GHSA-btch-0000', { affected: [{ package: { ecosystem: 'npm', name: 'batch-pkg' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }] }] });
    // The second batch of 500 holds a record the database will not store.
    records[550] = osv('GHSA-refused', {});
    const allow = await refuseAdvisory(t.db.kysely, 'GHSA-refused');
    try {
      expect((await importAdvisories(records)).statusCode).toBe(500);
    } finally {
      await allow();
    }
    expect(await t.db.kysely.selectFrom('advisories').select('id').where('id', 'in', ['GHSA-btch-0000', 'GHSA-btch-0499', 'GHSA-btch-0500']).orderBy('id').execute())
      .toEqual([{ id: 'GHSA-btch-0000' }, { id: 'GHSA-btch-0499' }]);
    // The first batch is saved, and so is its re-match: the repository's finding opens without a new upload.
    expect(await t.drain()).toBe(1);
    expect((await findings(repo)).map((f) => [f.rule_id, f.state])).toEqual([['GHSA-btch-0000', 'open']]);
  });

  // Last: its repository and advisories would show in the lists the tests above read.
  it('an SBOM uploaded again unchanged reports its matches as a full match would, after a dismissal, a re-match and a deleted analysis', async () => {
    const npm = (name: string, id: string, alias: string) => osv(id, {
      aliases: [alias], summary: `Prototype Pollution in ${name}`,
      severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N' }],
      affected: [{ package: { ecosystem: 'npm', name, purl: `pkg:npm/${name}` }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }] }],
    });
    const python = osv('PYSEC-2024-1207', {
      aliases: ['CVE-2024-99207'], summary: 'Path traversal in unchanged-py',
      affected: [{ package: { ecosystem: 'PyPI', name: 'unchanged-py', purl: 'pkg:pypi/unchanged-py' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0' }] }] }],
    });
    expect((await importAdvisories([npm('unchanged-a', 'GHSA-4xq9-r2vm-p7c3', 'CVE-2024-99201'), python])).json()).toMatchObject({ added: 2 });
    const repo = await newRepo('unchanged');
    const sbom = cyclonedx([
      { name: 'unchanged-a', version: '1.0.0', purl: 'pkg:npm/unchanged-a@1.0.0' },
      { name: 'unchanged-b', version: '1.0.0', purl: 'pkg:npm/unchanged-b@1.0.0' },
      { name: 'unchanged-c', version: 'latest', purl: 'pkg:npm/unchanged-c@latest' },
    ]);
    expect(await upload(repo, sbom)).toMatchObject({ components_unchecked: 1, counts: { new: 1, components: 3 } });
    // A second SBOM of the same ref, from another tool: the ref's matches cover both.
    const pythonSbom = await upload(repo, spdx([{ name: 'unchanged-py', version: '1.0', purl: 'pkg:pypi/unchanged-py@1.0' }]));
    expect(pythonSbom).toMatchObject({ components_unchecked: 1, counts: { new: 1, unchanged: 1, findings: 2 } });
    const [first] = (await findings(repo, 'open')).filter((f) => f.package?.name === 'unchanged-a') as (Finding & { id: string })[];
    const dismissed = await t.request({ method: 'PATCH', url: `/api/v1/findings/${first!.id}`, headers: { cookie: owner.cookie }, payload: { state: 'dismissed', reason: 'not_affected' } });
    expect(dismissed.statusCode, dismissed.body).toBe(200);

    // Unchanged: a dismissed match and an open one, both unchanged, the unchecked component still counted.
    const again = await upload(repo, sbom);
    expect(again).toMatchObject({ status: 'complete', components_unchecked: 1, counts: { new: 0, fixed: 0, reopened: 0, unchanged: 2, findings: 2, components: 3 } });
    const analyses = async () => (await t.request({ url: `/api/v1/repos/${repo}/analyses`, headers: { cookie: owner.cookie } })).json<{ id: string; tool: string; last_upload_id: string }[]>();
    expect((await analyses()).find((a) => a.tool === 'advisories')?.last_upload_id).toBe(again.id);
    expect((await findings(repo)).map((f) => [f.package?.name, f.state]).sort()).toEqual([['unchanged-a', 'dismissed'], ['unchanged-py', 'open']]);

    // An advisory imported later is matched by its re-match; the SBOM uploaded again after it holds that match too.
    expect((await importAdvisories(npm('unchanged-b', 'GHSA-9m3w-hc6f-x2jq', 'CVE-2024-99202'))).json()).toMatchObject({ added: 1, rematch_queued: 1 });
    await t.drain();
    expect(await upload(repo, sbom)).toMatchObject({ components_unchecked: 1, counts: { new: 0, fixed: 0, unchanged: 3, findings: 3 } });

    // Without the Python SBOM's analysis, its package's match is fixed at the next upload, unchanged or not.
    const spdxAnalysis = (await analyses()).find((a) => a.tool === 'syft')!;
    expect((await t.request({ method: 'DELETE', url: `/api/v1/repos/${repo}/analyses/${spdxAnalysis.id}`, headers: { cookie: owner.cookie } })).statusCode).toBe(204);
    expect(await upload(repo, sbom)).toMatchObject({ components_unchecked: 1, counts: { new: 0, fixed: 1, unchanged: 2, findings: 2 } });
    expect((await findings(repo)).map((f) => [f.package?.name, f.state]).sort()).toEqual([['unchanged-a', 'dismissed'], ['unchanged-b', 'open'], ['unchanged-py', 'fixed']]);
    expect(await upload(repo, sbom)).toMatchObject({ components_unchecked: 1, counts: { new: 0, fixed: 0, unchanged: 2, findings: 2 } });
  });
});
