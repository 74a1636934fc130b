/**
 * The main path of a security team, in real Chromium against the built server: sign in, create an
 * organization and a repository, create an API key, upload scan results with it as CI would, read
 * them on the repository page, and revoke the key.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { browserSuite } from './support/suite.js';
import { corpus } from './support/paths.js';

const SARIF = path.join(corpus, 'sarif/trivy-image-alpine-310.sarif');
const CYCLONEDX = path.join(corpus, 'cyclonedx/trivy-image-fluentd-vulns-1.6.cdx.json');
const SEMGREP = path.join(corpus, 'findings/semgrep-1.30.0.json');
/** Passes the checks made before 202 (it is JSON, and SARIF), fails in processing. */
const BROKEN_SARIF = JSON.stringify({ version: '2.1.0', runs: [{ tool: {} }] });

const suite = browserSuite();
let orgId = '';
let repoId = '';
let apiKey = '';

async function upload(file: string | { text: string }, key: string, query = '', repo = repoId): Promise<Response> {
  return fetch(`${suite.server.url}/api/v1/repos/${repo}/upload${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: typeof file === 'string' ? await readFile(file) : file.text,
  });
}

/** Waits until every upload of a repository has been processed. */
async function processed(repo: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const status = await apiGet<{ state: string }>(`/api/v1/repos/${repo}/status`);
    if (status.state !== 'pending' && status.state !== 'processing') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the uploads of ${repo} were not processed in time`);
}

async function apiGet<T>(pathname: string): Promise<T> {
  const res = await fetch(`${suite.server.url}${pathname}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status, `${pathname}: ${await res.clone().text()}`).toBe(200);
  return res.json() as Promise<T>;
}


describe('a security team with the dev login', () => {
  it('signs in with Dev Login and lands on an empty dashboard', async () => {
    await suite.page.goto('/');
    // Not signed in: the app sends the browser to the login screen, remembering where it was.
    await suite.page.waitForURL(/\/login\?return_to=%2F$/);
    await suite.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(suite.page, 'login');
    await suite.page.getByRole('button', { name: 'Dev Login' }).click();
    await suite.page.waitForURL(`${suite.server.url}/`);
    await suite.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await suite.page.getByText('You are not in any organization yet').waitFor();
    expect(await suite.page.getByRole('banner').getByText('dev', { exact: true }).isVisible()).toBe(true);
  });

  it('creates an organization and a repository', async () => {
    await suite.page.getByLabel('Name', { exact: true }).fill('Acme Security');
    await suite.page.getByLabel(/Description/).fill('Payment services and their infrastructure');
    await suite.page.getByRole('button', { name: 'Create organization' }).click();
    await suite.page.waitForURL(/\/orgs\/[^/]+$/);
    orgId = new URL(suite.page.url()).pathname.split('/')[2]!;
    await suite.page.getByRole('heading', { name: 'Acme Security' }).waitFor();
    await suite.page.getByText('No repositories yet').waitFor();

    await suite.page.getByRole('button', { name: 'Add repository' }).click();
    await suite.page.getByLabel('Name', { exact: true }).fill('payments-api');
    await suite.page.getByLabel(/URL on the forge/).fill('https://git.example.com/acme/payments-api');
    await suite.page.getByLabel(/Default branch/).fill('main');
    await suite.page.getByRole('button', { name: 'Add repository' }).last().click();
    await suite.page.waitForURL(/\/repos\/[^/?]+/);
    repoId = new URL(suite.page.url()).pathname.split('/')[2]!;
    await suite.page.getByRole('heading', { name: 'payments-api' }).waitFor();
    // Never scanned: the page leads with how to upload, and the command names this repository.
    await suite.page.getByRole('heading', { name: 'Upload the first scan results' }).waitFor();
    const command = await suite.page.getByLabel('Upload command').textContent();
    expect(command).toContain(`${suite.server.url}/api/v1/repos/${repoId}/upload`);
    expect(command).toContain('Authorization: Bearer $SCANYARD_KEY');
    await suite.page.getByLabel(/Category/).fill('container-image');
    expect(await suite.page.getByLabel('Upload command').textContent()).toContain('upload?category=container-image');
  });

  it('creates an API key in Settings and reads its secret once', async () => {
    await suite.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await suite.page.getByRole('heading', { name: 'Settings' }).waitFor();
    await suite.page.getByText('No API keys').waitFor();
    await suite.page.getByRole('button', { name: 'Create API key' }).click();
    await suite.page.getByLabel('Name', { exact: true }).fill('GitHub Actions: payments-api');
    await suite.page.getByLabel('Expires').selectOption('90');
    await suite.page.getByRole('radio', { name: /Upload/ }).check();
    await screenshot(suite.page, 'settings-new-key');
    await suite.page.getByRole('button', { name: 'Create key' }).click();
    const secret = suite.page.getByTestId('new-api-key');
    await secret.waitFor();
    apiKey = (await secret.textContent())!.trim();
    expect(apiKey).toMatch(/^syd_\S{20,}$/);
    const row = suite.page.getByRole('row', { name: /GitHub Actions: payments-api/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Upload');
    await screenshot(suite.page, 'settings');
  });

  it('accepts a SARIF and a CycloneDX upload with that key over plain HTTP', async () => {
    const sarif = await upload(SARIF, apiKey, '?category=container-image');
    expect(sarif.status, await sarif.clone().text()).toBe(202);
    const sbom = await upload(CYCLONEDX, apiKey, '?category=sbom');
    expect(sbom.status, await sbom.clone().text()).toBe(202);
  });

  it('shows the counts, the findings and the components on the repository page', async () => {
    await suite.page.goto(`/repos/${repoId}`);
    await suite.page.getByRole('heading', { name: 'payments-api' }).waitFor();
    // The page polls while uploads are pending or processing.
    await suite.page.getByRole('main').locator('.page-header .status-complete').waitFor({ timeout: 30_000 });

    type Status = { findings: Record<'open' | 'critical' | 'high' | 'medium' | 'low' | 'info', number>; components: number };
    const status = await apiGet<Status>(`/api/v1/repos/${repoId}/status`);
    expect(status.findings.open).toBeGreaterThan(0);
    expect(status.components).toBeGreaterThan(0);

    const chart = suite.page.getByRole('img', { name: /^Open findings by severity/ });
    const label = await chart.getAttribute('aria-label');
    for (const severity of ['critical', 'high', 'medium', 'low', 'info'] as const) {
      expect(label).toContain(`${status.findings[severity]} ${severity}`);
    }
    expect(await suite.page.locator('.big-number').textContent()).toBe(status.findings.open.toLocaleString('en-US'));
    expect(await suite.page.getByRole('link', { name: /^Findings/ }).textContent()).toContain(String(status.findings.open));

    // The findings table: the SARIF's CVEs at their location, and the SBOM's vulnerabilities.
    const findings = suite.page.getByRole('table', { name: 'Findings' });
    await findings.getByRole('rowheader', { name: /CVE-2019-1549/ }).first().waitFor();
    expect(await findings.textContent()).toContain('testdata/fixtures/images/alpine-310.tar.gz:1');
    expect(await findings.textContent()).toContain('CVE-2019-18276');
    await screenshot(suite.page, 'repository');

    // Filters are part of the URL.
    await suite.page.getByLabel('Severity', { exact: true }).selectOption('info');
    await suite.page.waitForURL(/severity=info/);
    await suite.page.getByLabel('Severity', { exact: true }).selectOption('');

    await suite.page.getByRole('link', { name: /^Components/ }).click();
    await suite.page.waitForURL(/tab=components/);
    const components = suite.page.getByRole('table', { name: 'Components' });
    await components.getByRole('rowheader', { name: 'activesupport' }).waitFor();
    expect(await components.getByRole('rowheader').count()).toBe(Math.min(status.components, 50));
    await screenshot(suite.page, 'repository-components');

    await suite.page.getByRole('link', { name: /^Uploads/ }).click();
    const uploads = suite.page.getByRole('table', { name: /Uploads/ });
    await uploads.getByText('SARIF').waitFor();
    expect(await uploads.getByText('CycloneDX').count()).toBe(1);
    expect(await uploads.locator('.status-complete').count()).toBe(2);
    await screenshot(suite.page, 'repository-uploads');
  });

  it('lists the repositories that need attention on the dashboard, most critical first, failed ones too; never scanned ones apart', async () => {
    // Two more repositories, made through the API with the browser's session: one whose latest
    // upload failed to process, and one never scanned.
    const create = async (name: string) => {
      // The page's cookie outside the page: the Origin a browser would add must be sent by hand.
      const res = await suite.page.request.post(`/api/v1/orgs/${orgId}/repos`, { data: { name }, headers: { origin: suite.server.url } });
      expect(res.status(), await res.text()).toBe(201);
      return (await res.json() as { id: string }).id;
    };
    const billing = await create('billing-worker');
    await create('web-frontend');
    expect((await upload(SEMGREP, apiKey, '?ref=main', billing)).status).toBe(202);
    await processed(billing);
    expect((await upload({ text: BROKEN_SARIF }, apiKey, '?category=codeql', billing)).status).toBe(202);
    await processed(billing);

    await suite.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await suite.page.getByRole('heading', { name: 'Repositories that need attention' }).waitFor();
    const table = suite.page.getByRole('table', { name: /need attention/ });
    await table.getByRole('row', { name: /payments-api/ }).locator('.status-complete').waitFor();
    const order = await table.getByRole('rowheader').allTextContents();
    expect(order.map((name) => name.replace(/Acme Security$/, ''))).toEqual(['payments-api', 'billing-worker']);
    await table.getByRole('row', { name: /billing-worker/ }).locator('.status-failed').waitFor();
    // Nothing open is not something to attend to: a never scanned repository is listed apart.
    await suite.page.getByRole('table', { name: 'Repositories with nothing open' }).getByRole('row', { name: /web-frontend/ }).getByText('Never scanned').waitFor();
    await screenshot(suite.page, 'dashboard');

    // The failed upload says why, on its repository's page.
    await suite.page.goto(`/repos/${billing}?tab=uploads`);
    await suite.page.getByRole('table', { name: /Uploads/ }).getByText('runs[0].tool.driver.name is missing').waitFor();
    await screenshot(suite.page, 'repository-failed-upload');

    await suite.page.goto(`/orgs/${orgId}`);
    await suite.page.getByRole('heading', { name: 'Acme Security' }).waitFor();
    await suite.page.getByRole('row', { name: /payments-api/ }).locator('.status-complete').waitFor();
    expect(await suite.page.getByRole('row').count()).toBe(4);
    await suite.page.getByLabel('Search repositories').fill('nothing-like-this');
    await suite.page.getByText('No repository matches “nothing-like-this”').waitFor();
    expect(suite.page.url()).toContain('q=nothing-like-this');
    await suite.page.getByLabel('Search repositories').fill('');
    await suite.page.getByRole('row', { name: /payments-api/ }).waitFor();
    await screenshot(suite.page, 'org');
    await suite.page.getByRole('link', { name: 'Members' }).click();
    await suite.page.getByRole('row', { name: /@dev/ }).waitFor();
    expect(await suite.page.getByRole('combobox', { name: 'Role of dev' }).inputValue()).toBe('owner');

    // Owners make teams of the organization's members.
    await suite.page.getByRole('link', { name: 'Teams' }).click();
    await suite.page.getByText('No teams yet').waitFor();
    await suite.page.getByRole('button', { name: 'New team' }).click();
    await suite.page.getByLabel('Name', { exact: true }).fill('AppSec');
    await suite.page.getByLabel(/Description/).fill('Triage and fix tracking');
    await suite.page.getByRole('checkbox', { name: /dev/ }).check();
    await suite.page.getByRole('button', { name: 'Create team' }).click();
    const team = suite.page.locator('.team-card', { hasText: 'AppSec' });
    await team.waitFor();
    expect(await team.textContent()).toContain('1 member');
    await screenshot(suite.page, 'org-teams');
  });

  it('renders the screens at 390 px and in the dark theme', async () => {
    const cookies = await suite.context.cookies();
    const phone = { width: 390, height: 844 };
    const views = [
      { name: 'repository-390px', path: `/repos/${repoId}`, ready: 'table', options: phone },
      { name: 'dashboard-390px', path: '/', ready: '.stats', options: phone },
      { name: 'settings-390px', path: '/settings', ready: 'h1', options: phone },
      { name: 'repository-dark', path: `/repos/${repoId}`, ready: 'table', options: { dark: true } },
      { name: 'dashboard-dark', path: '/', ready: '.stats', options: { dark: true } },
    ];
    for (const view of views) {
      const other = await newContext(suite.browser, suite.server.url, view.options);
      await other.addCookies(cookies);
      const p = await other.newPage();
      const errors = watchForPageErrors(p);
      await p.goto(view.path);
      await p.locator(view.ready).first().waitFor();
      if (view.options === phone) {
        // Nothing wider than the phone: no sideways scrolling of the page.
        const scrollWidth = await p.evaluate('document.documentElement.scrollWidth');
        expect(scrollWidth, view.name).toBeLessThanOrEqual(390);
      }
      await screenshot(p, view.name);
      expect(errors).toEqual([]);
      await other.close();
    }
  });

  it('revokes the key from Settings, after which an upload with it gets 401', async () => {
    await suite.page.goto('/settings');
    const row = suite.page.getByRole('row', { name: /GitHub Actions: payments-api/ });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke GitHub Actions: payments-api' }).click();
    await suite.page.getByText('No API keys').waitFor();
    const res = await upload(SARIF, apiKey);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('logs out, and a shared link leads back to it after signing in again', async () => {
    await suite.page.getByRole('button', { name: 'Log out' }).click();
    await suite.page.waitForURL(/\/login$/);
    await suite.page.goto(`/repos/${repoId}?tab=components`);
    await suite.page.waitForURL(/\/login\?return_to=/);
    expect(new URL(suite.page.url()).searchParams.get('return_to')).toBe(`/repos/${repoId}?tab=components`);
    await suite.page.getByRole('button', { name: 'Dev Login' }).click();
    await suite.page.waitForURL(new RegExp(`/repos/${repoId}\\?tab=components$`));
    await suite.page.getByRole('table', { name: 'Components' }).waitFor();
  });
});
