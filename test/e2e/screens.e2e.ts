/**
 * The screens a security engineer goes through, checked where a machine can see it: file locations
 * that never split inside a name, a page that picks up an upload made from a shell, what one upload
 * changed, the dashboard's clean and "inventory only" states, not-found pages with a way back, tab
 * counts that follow a removal, the audit log with its filters, and no sideways scrolling on a phone.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { browserSuite } from './support/suite.js';
import { corpus } from './support/paths.js';
import { creator, demoSarif, devLogin, expectNoSidewaysScroll } from './support/session.js';

const CODEQL = path.join(corpus, 'sarif/codeql-2.2.4-js-xss.sarif');
const GITLEAKS = path.join(corpus, 'sarif/gitleaks-7.4.0.sarif');
const KICS = path.join(corpus, 'sarif/kics-github-actions.sarif');
const SNYK = path.join(corpus, 'sarif/snyk-open-source-all-projects.sarif');
const SBOM = path.join(corpus, 'cyclonedx/cyclonedx-py-requirements-local-1.5.cdx.json');
const NO_RESULTS = path.join(corpus, 'sarif/semgrep-1.66.2-no-results.sarif');
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

const suite = browserSuite();
let apiKey = '';
let orgId = '';
const repos: Record<string, string> = {};

/** Uploads as CI does: the API key, the file as the body. */
async function upload(repo: string, file: string | { text: string }, query = ''): Promise<string> {
  const res = await fetch(`${suite.server.url}/api/v1/repos/${repo}/upload${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: typeof file === 'string' ? await readFile(file) : file.text,
  });
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json() as { id: string }).id;
}

async function processed(repo: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${suite.server.url}/api/v1/repos/${repo}/status`, { headers: { authorization: `Bearer ${apiKey}` } });
    const status = await res.json() as { state: string };
    if (status.state !== 'pending' && status.state !== 'processing') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the uploads of ${repo} were not processed in time`);
}

/**
 * Where a text wraps inside a token: each line break in the matched elements that does not come right
 * after a `/` (or a space), found by the position of every character. Runs in the page.
 */
function midTokenBreaks(selector: string): Promise<string[]> {
  return suite.page.evaluate(`(() => {
    const bad = [];
    for (const cell of document.querySelectorAll(${JSON.stringify(selector)})) {
      const chars = [];
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (rect) chars.push({ ch: node.data[i], top: Math.round(rect.top) });
        }
      }
      for (let i = 1; i < chars.length; i++) {
        if (chars[i].top > chars[i - 1].top + 2 && chars[i - 1].ch !== '/' && chars[i - 1].ch !== ' ') {
          bad.push(cell.textContent + ' (breaks after "' + chars.slice(0, i).map((c) => c.ch).join('') + '")');
        }
      }
    }
    return bad;
  })()`);
}

beforeAll(async () => {
  await devLogin(suite.page);
  const post = creator(suite.page, suite.server);
  orgId = (await post<{ id: string }>('/api/v1/orgs', { name: 'Acme' })).id;
  for (const name of ['web-app', 'sbom-only', 'clean-service', 'never-scanned', 'changes']) {
    repos[name] = (await post<{ id: string }>(`/api/v1/orgs/${orgId}/repos`, { name })).id;
  }
  apiKey = (await post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'], expires_at: null, org_ids: null })).key;
  await upload(repos['sbom-only']!, SBOM, '?category=sbom');
  await upload(repos['clean-service']!, NO_RESULTS);
  await upload(repos['web-app']!, CODEQL, `?category=js&ref=main&commit_sha=${COMMIT}`);
  for (const repo of Object.values(repos)) await processed(repo);
});


describe('the screens', () => {
  it('dashboard: only repositories with something open need attention; SBOM-only ones are an inventory, not clean', async () => {
    await suite.page.goto('/');
    const attention = suite.page.getByRole('table', { name: /need attention/ });
    await attention.getByRole('rowheader', { name: /web-app/ }).waitFor();
    expect(await attention.getByRole('rowheader').count()).toBe(1);
    const quiet = suite.page.getByRole('table', { name: 'Repositories with nothing open' });
    await quiet.getByRole('row', { name: /sbom-only/ }).getByText('Inventory only').waitFor();
    await quiet.getByRole('row', { name: /clean-service/ }).getByText('Clean', { exact: true }).waitFor();
    await quiet.getByRole('row', { name: /never-scanned/ }).getByText('Never scanned').waitFor();
    await screenshot(suite.page, 'screens-dashboard');
    // Its own page says the same, rather than "every analysis came back clean".
    await quiet.getByRole('link', { name: 'sbom-only' }).click();
    await suite.page.getByRole('heading', { name: 'sbom-only' }).waitFor();
    await suite.page.getByText('Inventory only').waitFor();
    expect(await suite.page.getByText('No open findings').count()).toBe(0);
  });

  it('repository: picks up an upload made from a shell within 5 s, without a reload', async () => {
    await suite.page.goto(`/repos/${repos['web-app']}`);
    const findings = suite.page.getByRole('table', { name: 'Findings' });
    await findings.getByRole('rowheader', { name: /js\/xss/ }).first().waitFor();
    expect(await findings.getByText('AWS Access Key').count()).toBe(0);
    // What CI does, while the page stays open.
    const started = Date.now();
    await upload(repos['web-app']!, GITLEAKS, '?category=secrets');
    await findings.getByRole('rowheader', { name: /AWS Access Key/ }).first().waitFor({ timeout: 5000 });
    await suite.page.getByRole('link', { name: /^Uploads\s*2$/ }).waitFor({ timeout: 5000 - (Date.now() - started) });
    // The commit Gitleaks names for a leak, as a short sha beside its location.
    const commit = findings.locator('td.location .finding-commit[title="Commit 6d127980966808f7413935678e079dcd7fedf9c2"]');
    expect(await commit.first().textContent()).toBe('@6d12798');
  });

  it('findings: a category column, rule names instead of UUIDs, no severity repeated in Snyk titles, no token split at 1280 px', async () => {
    await upload(repos['web-app']!, KICS, '?category=ci');
    await upload(repos['web-app']!, SNYK, '?category=deps');
    await processed(repos['web-app']!);
    await suite.page.goto(`/repos/${repos['web-app']}`);
    const findings = suite.page.getByRole('table', { name: 'Findings' });
    await findings.getByRole('rowheader', { name: /Run Block Injection/ }).first().waitFor();
    expect(await findings.textContent()).not.toContain('20f14e1a-a899-4e79-9f09-b6a84cd4649b');
    // KICS reports its one finding twice, word for word: one row with a count.
    expect(await findings.getByRole('row', { name: /Run Block Injection/ }).count()).toBe(1);
    expect(await findings.getByRole('row', { name: /Run Block Injection/ }).locator('.finding-occurrences').textContent()).toBe('×2');
    const snyk = findings.getByRole('rowheader', { name: /SNYK-JS-LODASH-1040724/ }).first();
    expect(await snyk.textContent()).toContain('Command Injection vulnerability in lodash');
    expect(await snyk.locator('.finding-rule-name').textContent()).not.toMatch(/severity/i);
    expect(await findings.getByRole('columnheader', { name: 'Category' }).count()).toBe(1);
    expect(await findings.getByRole('row', { name: /Xss2\.js/ }).getByRole('cell', { name: 'js', exact: true }).count()).toBe(1);

    expect(await findings.locator('td.location').count()).toBeGreaterThanOrEqual(10);
    // The path itself (a commit or a count may follow it on the next line).
    expect(await midTokenBreaks('table.findings td.location .location-path')).toEqual([]);
    await screenshot(suite.page, 'screens-findings');

    // A wrong upload is not permanent: an owner removes its analysis, and every count follows.
    const before = Number((await suite.page.locator('.big-number').textContent())!.replace(/\D/g, ''));
    const analyses = suite.page.getByRole('list', { name: 'Analyses' });
    await analyses.getByRole('listitem').filter({ hasText: 'KICS' }).getByRole('button', { name: 'Remove' }).click();
    await analyses.getByRole('button', { name: 'Remove KICS (ci)' }).click();
    await analyses.getByText('KICS').waitFor({ state: 'detached' });
    await findings.getByRole('rowheader', { name: /Run Block Injection/ }).first().waitFor({ state: 'detached' });
    expect(await suite.page.locator('.big-number').textContent()).toBe(String(before - 1));
  });

  it('an upload opens with what it changed: new, reopened (not counted as new) and fixed findings', async () => {
    const repo = repos['changes']!;
    await upload(repo, { text: demoSarif(['R1', 'R2']) });
    await processed(repo);
    const second = await upload(repo, { text: demoSarif(['R1']) });
    await processed(repo);
    await suite.page.goto(`/repos/${repo}/uploads/${second}?list=fixed`);
    await suite.page.getByRole('table', { name: 'Fixed findings of this upload' }).getByRole('rowheader', { name: /R2/ }).waitFor();

    const third = await upload(repo, { text: demoSarif(['R1', 'R2', 'R3']) });
    await processed(repo);
    await suite.page.goto(`/repos/${repo}?tab=uploads`);
    await suite.page.getByRole('table', { name: /Uploads/ }).getByRole('link', { name: /^Upload of/ }).first().click();
    await suite.page.waitForURL(new RegExp(`/repos/${repo}/uploads/${third}$`));
    const fresh = suite.page.getByRole('table', { name: 'New findings of this upload' });
    await fresh.getByRole('rowheader', { name: /R3/ }).waitFor();
    expect(await fresh.getByRole('rowheader').allTextContents()).toHaveLength(1);
    expect(await suite.page.getByRole('link', { name: /^New\s*1$/ }).count()).toBe(1);

    await suite.page.getByRole('link', { name: /^Reopened\s*1$/ }).click();
    const reopened = suite.page.getByRole('table', { name: 'Reopened findings of this upload' });
    await reopened.getByRole('row', { name: /R2/ }).getByText('reopened').waitFor();
    await screenshot(suite.page, 'screens-upload');
    // R2 came back, so the second upload no longer counts it among what stayed fixed.
    await suite.page.goto(`/repos/${repo}/uploads/${second}?list=fixed`);
    await suite.page.getByText('No fixed findings').waitFor();
  });

  it('while a screen loads it shows the shape of the page; a missing repository, organization or page is "not found", with a way back', async () => {
    const slowRepository = '**/api/v1/repos/*';
    await suite.page.route(slowRepository, async (route) => {
      await new Promise((r) => setTimeout(r, 1000));
      await route.continue();
    });
    await suite.page.goto(`/repos/${repos['web-app']}`);
    await suite.page.getByRole('status', { name: 'Loading the repository…' }).locator('.skeleton').first().waitFor();
    await screenshot(suite.page, 'screens-skeleton');
    await suite.page.getByRole('heading', { name: 'web-app' }).waitFor();
    await suite.page.unroute(slowRepository);

    for (const [url, title] of [
      ['/repos/00000000-0000-0000-0000-000000000000', 'Repository not found'],
      ['/orgs/no-such-org', 'Organization not found'],
      ['/no/such/page', 'Page not found'],
    ] as const) {
      await suite.page.goto(url);
      await suite.page.getByRole('heading', { name: title }).waitFor();
      expect(await suite.page.getByText('Something went wrong').count(), url).toBe(0);
    }
    await screenshot(suite.page, 'screens-not-found');
    await suite.page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await suite.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('organization: tabs count repositories, teams and members, and the count follows a removal', async () => {
    await suite.page.goto(`/orgs/${orgId}`);
    const tabs = suite.page.getByRole('navigation', { name: 'Organization sections' });
    await tabs.getByRole('link', { name: /Repositories\s*5/ }).waitFor();
    await tabs.getByRole('link', { name: /Teams\s*0/ }).waitFor();
    await tabs.getByRole('link', { name: /Members\s*1/ }).waitFor();
    const row = suite.page.getByRole('row', { name: /never-scanned/ });
    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Remove never-scanned' }).click();
    await tabs.getByRole('link', { name: /Repositories\s*4/ }).waitFor();
    await suite.page.getByRole('row', { name: /never-scanned/ }).waitFor({ state: 'detached' });
  });

  it('audit log: owners read their organization\'s, administrators the whole site\'s, filtered by action and person', async () => {
    await suite.page.goto(`/orgs/${orgId}?tab=audit`);
    const log = suite.page.getByRole('table', { name: /Audit log/ });
    await log.getByRole('row', { name: /repo\.deleted/ }).waitFor();
    expect(await log.getByRole('row', { name: /repo\.created/ }).count()).toBe(5);

    await suite.page.getByLabel('Action').fill('repo.deleted');
    await suite.page.waitForURL(/action=repo\.deleted/);
    await log.getByRole('row', { name: /repo\.created/ }).first().waitFor({ state: 'detached' });
    expect(await log.getByRole('rowheader').count()).toBe(1);
    expect(await log.textContent()).toContain('never-scanned');

    await suite.page.getByLabel('Person').fill('nobody-like-this');
    await suite.page.getByText('No events match these filters').waitFor();
    await suite.page.getByLabel('Person').fill('dev');
    await log.getByRole('row', { name: /repo\.deleted/ }).waitFor();
    await screenshot(suite.page, 'screens-org-audit');

    await suite.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await suite.page.waitForURL(/\/audit$/);
    await suite.page.getByRole('table', { name: /Audit log/ }).getByRole('row', { name: /api_key\.created/ }).waitFor();
    await suite.page.getByLabel('Action').fill('dev_login');
    await suite.page.waitForURL(/\/audit\?action=dev_login/);
    const rows = suite.page.getByRole('table', { name: /Audit log/ }).getByRole('rowheader');
    await suite.page.getByRole('table', { name: /Audit log/ }).getByRole('row', { name: /api_key\.created/ }).waitFor({ state: 'detached' });
    expect(await rows.count()).toBeGreaterThanOrEqual(1);
    await screenshot(suite.page, 'screens-site-audit');
  });

  it('on a phone nothing scrolls sideways, the CI command is whole, and branch and SHA stay together', async () => {
    const cookies = await suite.context.cookies();
    const phone = await newContext(suite.browser, suite.server.url, { width: 390, height: 844 });
    await phone.addCookies(cookies);
    const p = await phone.newPage();
    const errors = watchForPageErrors(p);
    const web = repos['web-app'];
    const views = [
      ['/', '.stats'], [`/orgs/${orgId}`, 'table'], [`/orgs/${orgId}?tab=teams`, '.empty'], [`/orgs/${orgId}?tab=members`, 'table'],
      [`/orgs/${orgId}?tab=audit`, 'table'], [`/repos/${web}`, 'table'], [`/repos/${web}?tab=components`, '.empty'],
      [`/repos/${web}?tab=uploads`, 'table'], [`/repos/${web}?tab=upload`, 'pre'], [`/repos/${repos['changes']}?tab=uploads`, 'table'],
      ['/settings', 'table'], ['/audit', 'table'], ['/repos/missing', 'h1'],
    ] as const;
    for (const [url, ready] of views) {
      await p.goto(url);
      await p.locator(ready).first().waitFor();
      await expectNoSidewaysScroll(p, url);
    }

    await p.goto(`/repos/${web}?tab=upload`);
    const command = p.getByLabel('Upload command');
    const pre = command.locator('..');
    expect(await pre.evaluate((el) => el.scrollWidth - el.clientWidth), 'the command scrolls sideways').toBeLessThanOrEqual(0);
    const copy = await p.getByRole('button', { name: 'Copy command' }).boundingBox();
    const code = await pre.boundingBox();
    expect(copy!.y >= code!.y + code!.height || copy!.x >= code!.x + code!.width, 'the Copy button covers the command').toBe(true);
    expect(await command.textContent()).toContain(`/api/v1/repos/${web}/upload`);
    await screenshot(p, 'screens-ci-390px');

    await p.goto(`/repos/${web}?tab=uploads`);
    const source = p.locator('.source-ref').last();
    await source.waitFor();
    const [branch, sha] = await source.locator('span').evaluateAll((spans) => spans.map((s) => s.getBoundingClientRect().top));
    expect(branch).toBeDefined();
    expect(sha).toBe(branch);
    await screenshot(p, 'screens-uploads-390px');
    await p.goto(`/orgs/${orgId}?tab=audit`);
    await p.locator('table').waitFor();
    await screenshot(p, 'screens-audit-390px');
    expect(errors).toEqual([]);
    await phone.close();

    const dark = await newContext(suite.browser, suite.server.url, { dark: true });
    await dark.addCookies(cookies);
    const d = await dark.newPage();
    await d.goto(`/repos/${web}`);
    await d.locator('table').waitFor();
    await screenshot(d, 'screens-repository-dark');
    await d.goto(`/orgs/${orgId}`);
    await d.getByRole('button', { name: 'Add repository' }).click();
    await d.locator('form').waitFor();
    await screenshot(d, 'screens-disabled-button-dark');
    await dark.close();
  });
});
