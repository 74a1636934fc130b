/**
 * The main path of a security team, in real Chromium against the built server: sign in, create an
 * organization and a repository, create an API key, upload scan results with it as CI would, read
 * them on the repository page, and revoke the key.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { corpus } from './support/paths.js';
import { startServer, type RunningServer } from './support/server.js';

const SARIF = path.join(corpus, 'sarif/trivy-image-alpine-310.sarif');
const CYCLONEDX = path.join(corpus, 'cyclonedx/trivy-image-fluentd-vulns-1.6.cdx.json');
const SEMGREP = path.join(corpus, 'findings/semgrep-1.30.0.json');
/** Passes the checks made before 202 (it is JSON, and SARIF), fails in processing. */
const BROKEN_SARIF = JSON.stringify({ version: '2.1.0', runs: [{ tool: {} }] });

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
let orgId = '';
let repoId = '';
let apiKey = '';

async function upload(file: string | { text: string }, key: string, query = '', repo = repoId): Promise<Response> {
  return fetch(`${server.url}/api/v1/repos/${repo}/upload${query}`, {
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
  const res = await fetch(`${server.url}${pathname}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status, `${pathname}: ${await res.clone().text()}`).toBe(200);
  return res.json() as Promise<T>;
}

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  context = await newContext(browser, server.url);
  page = await context.newPage();
  pageErrors = watchForPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  expect(pageErrors, 'errors thrown in the page').toEqual([]);
});

describe('a security team with the dev login', () => {
  it('signs in with Dev Login and lands on an empty dashboard', async () => {
    await page.goto('/');
    // Not signed in: the app sends the browser to the login screen, remembering where it was.
    await page.waitForURL(/\/login\?return_to=%2F$/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'login');
    await page.getByRole('button', { name: 'Dev Login' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByText('You are not in any organization yet').waitFor();
    expect(await page.getByRole('banner').getByText('dev', { exact: true }).isVisible()).toBe(true);
  });

  it('creates an organization and a repository', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Acme Security');
    await page.getByLabel(/Description/).fill('Payment services and their infrastructure');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.waitForURL(/\/orgs\/[^/]+$/);
    orgId = new URL(page.url()).pathname.split('/')[2]!;
    await page.getByRole('heading', { name: 'Acme Security' }).waitFor();
    await page.getByText('No repositories yet').waitFor();

    await page.getByRole('button', { name: 'Add repository' }).click();
    await page.getByLabel('Name', { exact: true }).fill('payments-api');
    await page.getByLabel(/URL on the forge/).fill('https://git.example.com/acme/payments-api');
    await page.getByLabel(/Default branch/).fill('main');
    await page.getByRole('button', { name: 'Add repository' }).last().click();
    await page.waitForURL(/\/repos\/[^/?]+/);
    repoId = new URL(page.url()).pathname.split('/')[2]!;
    await page.getByRole('heading', { name: 'payments-api' }).waitFor();
    // Never scanned: the page leads with how to upload, and the command names this repository.
    await page.getByRole('heading', { name: 'Upload the first scan results' }).waitFor();
    const command = await page.getByLabel('Upload command').textContent();
    expect(command).toContain(`${server.url}/api/v1/repos/${repoId}/upload`);
    expect(command).toContain('Authorization: Bearer $SCANYARD_KEY');
    await page.getByLabel(/Category/).fill('container-image');
    expect(await page.getByLabel('Upload command').textContent()).toContain('upload?category=container-image');
  });

  it('creates an API key in Settings and reads its secret once', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText('No API keys').waitFor();
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('GitHub Actions: payments-api');
    await page.getByLabel('Expires').selectOption('90');
    await page.getByRole('radio', { name: /Upload/ }).check();
    await screenshot(page, 'settings-new-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('new-api-key');
    await secret.waitFor();
    apiKey = (await secret.textContent())!.trim();
    expect(apiKey).toMatch(/^syd_\S{20,}$/);
    const row = page.getByRole('row', { name: /GitHub Actions: payments-api/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Upload');
    await screenshot(page, 'settings');
  });

  it('accepts a SARIF and a CycloneDX upload with that key over plain HTTP', async () => {
    const sarif = await upload(SARIF, apiKey, '?category=container-image');
    expect(sarif.status, await sarif.clone().text()).toBe(202);
    const sbom = await upload(CYCLONEDX, apiKey, '?category=sbom');
    expect(sbom.status, await sbom.clone().text()).toBe(202);
  });

  it('shows the counts, the findings and the components on the repository page', async () => {
    await page.goto(`/repos/${repoId}`);
    await page.getByRole('heading', { name: 'payments-api' }).waitFor();
    // The page polls while uploads are pending or processing.
    await page.getByRole('main').locator('.page-header .status-complete').waitFor({ timeout: 30_000 });

    type Status = { findings: Record<'open' | 'critical' | 'high' | 'medium' | 'low' | 'info', number>; components: number };
    const status = await apiGet<Status>(`/api/v1/repos/${repoId}/status`);
    expect(status.findings.open).toBeGreaterThan(0);
    expect(status.components).toBeGreaterThan(0);

    const chart = page.getByRole('img', { name: /^Open findings by severity/ });
    const label = await chart.getAttribute('aria-label');
    for (const severity of ['critical', 'high', 'medium', 'low', 'info'] as const) {
      expect(label).toContain(`${status.findings[severity]} ${severity}`);
    }
    expect(await page.locator('.big-number').textContent()).toBe(status.findings.open.toLocaleString('en-US'));
    expect(await page.getByRole('link', { name: /^Findings/ }).textContent()).toContain(String(status.findings.open));

    // The findings table: the SARIF's CVEs at their location, and the SBOM's vulnerabilities.
    const findings = page.getByRole('table', { name: 'Findings' });
    await findings.getByRole('rowheader', { name: /CVE-2019-1549/ }).first().waitFor();
    expect(await findings.textContent()).toContain('testdata/fixtures/images/alpine-310.tar.gz:1');
    expect(await findings.textContent()).toContain('CVE-2019-18276');
    await screenshot(page, 'repository');

    // Filters are part of the URL.
    await page.getByLabel('Severity', { exact: true }).selectOption('info');
    await page.waitForURL(/severity=info/);
    await page.getByLabel('Severity', { exact: true }).selectOption('');

    await page.getByRole('link', { name: /^Components/ }).click();
    await page.waitForURL(/tab=components/);
    const components = page.getByRole('table', { name: 'Components' });
    await components.getByRole('rowheader', { name: 'activesupport' }).waitFor();
    expect(await components.getByRole('rowheader').count()).toBe(Math.min(status.components, 50));
    await screenshot(page, 'repository-components');

    await page.getByRole('link', { name: /^Uploads/ }).click();
    const uploads = page.getByRole('table', { name: /Uploads/ });
    await uploads.getByText('SARIF').waitFor();
    expect(await uploads.getByText('CycloneDX').count()).toBe(1);
    expect(await uploads.locator('.status-complete').count()).toBe(2);
    await screenshot(page, 'repository-uploads');
  });

  it('lists the repositories that need attention on the dashboard, most critical first, failed ones too; never scanned ones apart', async () => {
    // Two more repositories, made through the API with the browser's session: one whose latest
    // upload failed to process, and one never scanned.
    const create = async (name: string) => {
      // The page's cookie outside the page: the Origin a browser would add must be sent by hand.
      const res = await page.request.post(`/api/v1/orgs/${orgId}/repos`, { data: { name }, headers: { origin: server.url } });
      expect(res.status(), await res.text()).toBe(201);
      return (await res.json() as { id: string }).id;
    };
    const billing = await create('billing-worker');
    await create('web-frontend');
    expect((await upload(SEMGREP, apiKey, '?ref=main', billing)).status).toBe(202);
    await processed(billing);
    expect((await upload({ text: BROKEN_SARIF }, apiKey, '?category=codeql', billing)).status).toBe(202);
    await processed(billing);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { name: 'Repositories that need attention' }).waitFor();
    const table = page.getByRole('table', { name: /need attention/ });
    await table.getByRole('row', { name: /payments-api/ }).locator('.status-complete').waitFor();
    const order = await table.getByRole('rowheader').allTextContents();
    expect(order.map((name) => name.replace(/Acme Security$/, ''))).toEqual(['payments-api', 'billing-worker']);
    await table.getByRole('row', { name: /billing-worker/ }).locator('.status-failed').waitFor();
    // Nothing open is not something to attend to: a never scanned repository is listed apart.
    await page.getByRole('table', { name: 'Repositories with nothing open' }).getByRole('row', { name: /web-frontend/ }).getByText('Never scanned').waitFor();
    await screenshot(page, 'dashboard');

    // The failed upload says why, on its repository's page.
    await page.goto(`/repos/${billing}?tab=uploads`);
    await page.getByRole('table', { name: /Uploads/ }).getByText('runs[0].tool.driver.name is missing').waitFor();
    await screenshot(page, 'repository-failed-upload');

    await page.goto(`/orgs/${orgId}`);
    await page.getByRole('heading', { name: 'Acme Security' }).waitFor();
    await page.getByRole('row', { name: /payments-api/ }).locator('.status-complete').waitFor();
    expect(await page.getByRole('row').count()).toBe(4);
    await page.getByLabel('Search repositories').fill('nothing-like-this');
    await page.getByText('No repository matches “nothing-like-this”').waitFor();
    expect(page.url()).toContain('q=nothing-like-this');
    await page.getByLabel('Search repositories').fill('');
    await page.getByRole('row', { name: /payments-api/ }).waitFor();
    await screenshot(page, 'org');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('row', { name: /@dev/ }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Role of dev' }).inputValue()).toBe('owner');

    // Owners make teams of the organization's members.
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByText('No teams yet').waitFor();
    await page.getByRole('button', { name: 'New team' }).click();
    await page.getByLabel('Name', { exact: true }).fill('AppSec');
    await page.getByLabel(/Description/).fill('Triage and fix tracking');
    await page.getByRole('checkbox', { name: /dev/ }).check();
    await page.getByRole('button', { name: 'Create team' }).click();
    const team = page.locator('.team-card', { hasText: 'AppSec' });
    await team.waitFor();
    expect(await team.textContent()).toContain('1 member');
    await screenshot(page, 'org-teams');
  });

  it('renders the screens at 390 px and in the dark theme', async () => {
    const cookies = await context.cookies();
    const phone = { width: 390, height: 844 };
    const views = [
      { name: 'repository-390px', path: `/repos/${repoId}`, ready: 'table', options: phone },
      { name: 'dashboard-390px', path: '/', ready: '.stats', options: phone },
      { name: 'settings-390px', path: '/settings', ready: 'h1', options: phone },
      { name: 'repository-dark', path: `/repos/${repoId}`, ready: 'table', options: { dark: true } },
      { name: 'dashboard-dark', path: '/', ready: '.stats', options: { dark: true } },
    ];
    for (const view of views) {
      const other = await newContext(browser, server.url, view.options);
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
    await page.goto('/settings');
    const row = page.getByRole('row', { name: /GitHub Actions: payments-api/ });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke GitHub Actions: payments-api' }).click();
    await page.getByText('No API keys').waitFor();
    const res = await upload(SARIF, apiKey);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it('logs out, and a shared link leads back to it after signing in again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(`/repos/${repoId}?tab=components`);
    await page.waitForURL(/\/login\?return_to=/);
    expect(new URL(page.url()).searchParams.get('return_to')).toBe(`/repos/${repoId}?tab=components`);
    await page.getByRole('button', { name: 'Dev Login' }).click();
    await page.waitForURL(new RegExp(`/repos/${repoId}\\?tab=components$`));
    await page.getByRole('table', { name: 'Components' }).waitFor();
  });
});
