/**
 * Advisories as a security team meets them, in real Chromium against the built server: an OSV
 * advisory imported by the site administrator, an SBOM with an affected component, the component
 * marked on the repository's Components tab, the advisory's page with the affected repository, the
 * dashboard's list, the sources on the admin screen; and the same screens at 390 px and dark.
 */
import { describe, expect, it } from 'vitest';
import { newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { expectNoSidewaysScroll } from './support/session.js';
import { browserSuite } from './support/suite.js';

/** The GitHub advisory for lodash's command injection, as osv.dev publishes it (schema 1.6). */
const LODASH = {
  schema_version: '1.6.0',
  id: 'GHSA-35jh-r3h4-6jhm',
  modified: '2024-01-01T00:00:00Z',
  published: '2021-02-15T21:28:19Z',
  aliases: ['CVE-2021-23337'],
  summary: 'Command Injection in lodash',
  details: '`lodash` versions prior to 4.17.21 are vulnerable to Command Injection via the template function.',
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }],
  affected: [{
    package: { ecosystem: 'npm', name: 'lodash', purl: 'pkg:npm/lodash' },
    ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
  }],
  references: [{ type: 'ADVISORY', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337' }],
};

// CycloneDX 1.6 with its dependency graph (as cdxgen writes it): the application depends on express
// and async; async 2.6.3 depends on lodash (^4.17.14 in its package.json), so lodash is transitive.
const SBOM = JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
  metadata: {
    tools: { components: [{ type: 'application', name: 'cdxgen', version: '11.0.0' }] },
    component: { type: 'application', 'bom-ref': 'pkg:npm/storefront@1.0.0', name: 'storefront', version: '1.0.0', purl: 'pkg:npm/storefront@1.0.0' },
  },
  components: [
    { type: 'library', 'bom-ref': 'pkg:npm/lodash@4.17.20', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' },
    { type: 'library', 'bom-ref': 'pkg:npm/express@4.19.2', name: 'express', version: '4.19.2', purl: 'pkg:npm/express@4.19.2' },
    { type: 'library', 'bom-ref': 'pkg:npm/async@2.6.3', name: 'async', version: '2.6.3', purl: 'pkg:npm/async@2.6.3' },
  ],
  dependencies: [
    { ref: 'pkg:npm/storefront@1.0.0', dependsOn: ['pkg:npm/express@4.19.2', 'pkg:npm/async@2.6.3'] },
    { ref: 'pkg:npm/async@2.6.3', dependsOn: ['pkg:npm/lodash@4.17.20'] },
    { ref: 'pkg:npm/express@4.19.2', dependsOn: [] },
    { ref: 'pkg:npm/lodash@4.17.20', dependsOn: [] },
  ],
});

const SOURCE = 'http://127.0.0.1:9/osv/npm/all.zip';

// A source on a loopback address: the SSRF guard refuses it, so its failure shows on the admin screen.
const suite = browserSuite({ env: { SERVICE_ADVISORY_SOURCES: SOURCE }, signedIn: true });
const api = suite.api;
let repoId = '';

describe('advisories in Chromium', () => {
  it('marks the affected component of an uploaded SBOM on the Components tab', async () => {
    const report = await api<{ added: number }>('POST', '/api/v1/advisories/import', LODASH);
    expect(report.added).toBe(1);
    const org = await api<{ id: string }>('POST', '/api/v1/orgs', { name: 'acme' });
    repoId = (await api<{ id: string }>('POST', `/api/v1/orgs/${org.id}/repos`, { name: 'storefront' })).id;
    const { key } = await api<{ key: string }>('POST', '/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    const upload = await (await fetch(`${suite.server.url}/api/v1/repos/${repoId}/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: SBOM })).json() as { id: string };
    const settled = await (await fetch(`${suite.server.url}/api/v1/uploads/${upload.id}?wait=30`, { headers: { authorization: `Bearer ${key}` } })).json() as { status: string };
    expect(settled.status).toBe('complete');

    await suite.page.goto(`/repos/${repoId}?tab=components`);
    const table = suite.page.getByRole('table', { name: 'Components' });
    const lodash = table.getByRole('row', { name: /lodash/ });
    await lodash.getByText('Vulnerable').waitFor();
    await lodash.getByRole('link', { name: 'GHSA-35jh-r3h4-6jhm' }).waitFor();
    expect(await lodash.textContent()).toContain('fixed in 4.17.21');
    const express = table.getByRole('row', { name: /express/ });
    expect(await express.getByText('Vulnerable').count()).toBe(0);
    await screenshot(suite.page, 'components-vulnerable');

    await lodash.getByRole('link', { name: 'GHSA-35jh-r3h4-6jhm' }).click();
    await suite.page.waitForURL(/\/advisories\/GHSA-35jh-r3h4-6jhm$/);
  });

  it('shows the advisory page with its packages and the affected repository', async () => {
    await suite.page.getByRole('heading', { name: 'GHSA-35jh-r3h4-6jhm' }).waitFor();
    await suite.page.getByText('Command Injection in lodash').first().waitFor();
    await suite.page.getByText('CVE-2021-23337', { exact: true }).waitFor();
    // Its references are links (the record's http(s) ones only).
    await suite.page.getByRole('link', { name: 'https://nvd.nist.gov/vuln/detail/CVE-2021-23337' }).waitFor();
    await suite.page.getByText('High', { exact: true }).first().waitFor();
    await suite.page.getByText('vulnerable to Command Injection via the template function').waitFor();
    const affected = suite.page.getByRole('table', { name: 'Affected packages' });
    expect(await affected.textContent()).toContain('fixed in 4.17.21');
    const repos = suite.page.getByRole('table', { name: 'Affected repositories' });
    await repos.getByRole('link', { name: 'acme/storefront' }).click();
    await suite.page.waitForURL(new RegExp(`/repos/${repoId}\\?tab=components`));
    await suite.page.getByRole('table', { name: 'Components' }).waitFor();
  });

  it('says in the findings list which vulnerable packages are transitive, and through what', async () => {
    await suite.page.goto(`/repos/${repoId}`);
    const row = suite.page.getByRole('table', { name: 'Findings' }).getByRole('row', { name: /GHSA-35jh-r3h4-6jhm/ });
    await row.waitFor();
    expect(await row.locator('.finding-dependency').textContent()).toBe('transitive via async@2.6.3 → lodash@4.17.20');
  });

  it('lists the advisory on the dashboard by the repositories it affects', async () => {
    await suite.page.goto('/');
    const top = suite.page.getByRole('table', { name: 'Advisories affecting the most repositories' });
    const row = top.getByRole('row', { name: /GHSA-35jh-r3h4-6jhm/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('1');
    await screenshot(suite.page, 'dashboard-advisories');
    await row.getByRole('link', { name: 'GHSA-35jh-r3h4-6jhm' }).click();
    await suite.page.getByRole('heading', { name: 'GHSA-35jh-r3h4-6jhm' }).waitFor();
  });

  it('shows the advisory sources to the site administrator', async () => {
    await suite.page.goto('/audit');
    await suite.page.getByRole('heading', { name: 'Advisory sources' }).waitFor();
    const source = suite.page.getByRole('table', { name: 'Advisory sources' }).getByRole('row', { name: new RegExp(SOURCE.replaceAll('.', '\\.')) });
    await source.waitFor();
    // Synced at start on this instance: once tried, the refusal is what the administrator reads.
    await expect.poll(async () => {
      await suite.page.reload();
      await source.waitFor();
      return source.textContent();
    }, { timeout: 15_000 }).toMatch(/Failed: /);
    await screenshot(suite.page, 'audit-advisory-sources');
  });

  it('fits the screens at 390 px and in the dark theme', async () => {
    const cookies = await suite.context.cookies();
    const views = [
      { name: 'components-vulnerable-390px', path: `/repos/${repoId}?tab=components`, ready: 'text=Vulnerable', options: { width: 390, height: 844 } },
      { name: 'advisory-390px', path: '/advisories/CVE-2021-23337', ready: 'table', options: { width: 390, height: 844 } },
      { name: 'dashboard-advisories-390px', path: '/', ready: 'text=Advisories affecting the most repositories', options: { width: 390, height: 844 } },
      { name: 'audit-sources-390px', path: '/audit', ready: 'text=Advisory sources', options: { width: 390, height: 844 } },
      { name: 'advisory-dark', path: '/advisories/GHSA-35jh-r3h4-6jhm', ready: 'table', options: { dark: true } },
    ];
    for (const view of views) {
      const other = await newContext(suite.browser, suite.server.url, view.options);
      await other.addCookies(cookies);
      const p = await other.newPage();
      const errors = watchForPageErrors(p);
      await p.goto(view.path);
      await p.locator(view.ready).first().waitFor();
      if (view.options.width === 390) await expectNoSidewaysScroll(p, view.name);
      await screenshot(p, view.name);
      expect(errors).toEqual([]);
      await other.close();
    }
  });
});
