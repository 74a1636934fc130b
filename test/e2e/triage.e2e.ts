/**
 * Triage in the browser: a finding's own page with its rule help rendered inert, dismissing it there,
 * the dismissed filter, dismissing ticked rows together, and a suppression rule made in the
 * organization's settings that holds the findings under a path; and all of it on a 390 px phone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { browserSuite } from './support/suite.js';
import { creator, devLogin, expectNoSidewaysScroll } from './support/session.js';

/** Help as a hostile report could carry it: a script tag and a javascript: link among ordinary markdown. */
const HELP = [
  '# Cross-site scripting',
  'Escape what you **write** into the page. See [the cheat sheet](https://cheatsheetseries.owasp.org/).',
  '<script>window.pwned = true</script>',
  '[click me](javascript:window.pwned=true)',
].join('\n\n');

const result = (ruleId: string, uri: string, line: number) => ({
  ruleId,
  message: { text: `Problem ${ruleId} in ${uri}` },
  locations: [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: line } } }],
});

/** A SARIF 2.1.0 log of a made-up tool: one rule with markdown help, five results, one under test/. */
const SARIF = JSON.stringify({
  version: '2.1.0',
  $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
  runs: [{
    tool: {
      driver: {
        name: 'Demo',
        rules: [
          { id: 'demo/xss', name: 'CrossSiteScripting', help: { text: 'Escape output.', markdown: HELP } },
          { id: 'demo/sqli' }, { id: 'demo/path' }, { id: 'demo/redirect' }, { id: 'demo/secret' },
        ],
      },
    },
    results: [
      result('demo/xss', 'src/app.js', 3),
      result('demo/sqli', 'src/db.js', 10),
      result('demo/path', 'src/files.js', 20),
      result('demo/redirect', 'src/routes.js', 30),
      result('demo/secret', 'test/fixtures/keys.js', 1),
    ],
  }],
});

const suite = browserSuite();
let orgId = '';
let repoId = '';

beforeAll(async () => {
  await devLogin(suite.page);
  const post = creator(suite.page, suite.server);
  orgId = (await post<{ id: string }>('/api/v1/orgs', { name: 'Acme' })).id;
  repoId = (await post<{ id: string }>(`/api/v1/orgs/${orgId}/repos`, { name: 'web-app' })).id;
  const apiKey = (await post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'], expires_at: null, org_ids: null })).key;
  const res = await fetch(`${suite.server.url}/api/v1/repos/${repoId}/upload?category=demo`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: SARIF });
  expect(res.status, await res.clone().text()).toBe(202);
  for (let i = 0; i < 100; i++) {
    const status = await (await suite.page.request.get(`/api/v1/repos/${repoId}/status`)).json() as { state: string };
    if (status.state !== 'pending' && status.state !== 'processing') break;
    await new Promise((r) => setTimeout(r, 100));
  }
});

const findingsTable = () => suite.page.getByRole('table', { name: 'Findings' });
const openRows = () => findingsTable().getByRole('rowheader');

describe('triage', () => {
  it('a finding has its own page: message, location, the rule help rendered from markdown with the script and javascript: link inert', async () => {
    await suite.page.goto(`/repos/${repoId}`);
    await findingsTable().getByRole('link', { name: 'demo/xss' }).click();
    await suite.page.getByRole('heading', { name: 'demo/xss', level: 1 }).waitFor();
    expect(suite.page.url()).toMatch(/\/findings\/[^/]+$/);
    await suite.page.getByText('Problem demo/xss in src/app.js').waitFor();
    const help = suite.page.locator('.finding-help');
    await help.getByRole('heading', { name: 'Cross-site scripting' }).waitFor();
    expect(await help.locator('strong').textContent()).toBe('write');
    expect(await help.getByRole('link', { name: 'the cheat sheet' }).getAttribute('href')).toBe('https://cheatsheetseries.owasp.org/');
    expect(await help.locator('script').count()).toBe(0);
    // The javascript: link keeps its words but goes nowhere.
    await help.getByText('click me').waitFor();
    expect(await help.locator('a[href^="javascript"]').count()).toBe(0);
    await help.getByText('click me').click();
    expect(await suite.page.evaluate('window.pwned')).toBeUndefined();
    await suite.page.getByRole('heading', { name: 'History' }).waitFor();
    await suite.page.locator('.timeline').getByText('First reported').waitFor();
  });

  it('dismissing it as a false positive shows the dismissal and its history, and it moves to the dismissed filter', async () => {
    await suite.page.getByLabel('Reason').selectOption('false_positive');
    await suite.page.getByLabel(/^Comment/).fill('Output is escaped by the template');
    await suite.page.getByRole('button', { name: 'Dismiss finding' }).click();
    await suite.page.getByRole('button', { name: 'Reopen finding' }).waitFor();
    expect(await suite.page.getByTestId('finding-state').textContent()).toBe('dismissed');
    expect(await suite.page.getByTestId('dismissal').textContent()).toContain('False positive');
    const timeline = suite.page.locator('.timeline');
    await timeline.getByText('Dismissed', { exact: true }).waitFor();
    await timeline.getByText('Output is escaped by the template').waitFor();
    await screenshot(suite.page, 'triage-finding');

    await suite.page.goto(`/repos/${repoId}?state=dismissed`);
    await findingsTable().getByRole('link', { name: 'demo/xss' }).waitFor();
    expect(await openRows().count()).toBe(1);
    await suite.page.goto(`/repos/${repoId}`);
    await findingsTable().getByRole('link', { name: 'demo/sqli' }).waitFor();
    expect(await findingsTable().getByRole('link', { name: 'demo/xss' }).count()).toBe(0);
  });

  it('two ticked rows are dismissed together', async () => {
    expect(await openRows().count()).toBe(4);
    await findingsTable().getByRole('checkbox', { name: /demo\/sqli/ }).check();
    await findingsTable().getByRole('checkbox', { name: /demo\/path/ }).check();
    await suite.page.getByText('2 findings selected').waitFor();
    await suite.page.getByLabel('Reason for the selected').selectOption('wont_fix');
    await suite.page.getByRole('button', { name: 'Dismiss selected' }).click();
    await suite.page.getByRole('status').getByText('2 findings changed').waitFor();
    await findingsTable().getByRole('link', { name: 'demo/sqli' }).waitFor({ state: 'detached' });
    expect(await openRows().count()).toBe(2);
    await suite.page.goto(`/repos/${repoId}?state=dismissed`);
    await findingsTable().getByRole('link', { name: 'demo/path' }).waitFor();
    expect(await openRows().count()).toBe(3);
  });

  it('a suppression rule on a path glob, made in the organization settings, holds the findings under it', async () => {
    await suite.page.goto(`/orgs/${orgId}?tab=suppressions`);
    await suite.page.getByText('No suppression rules').waitFor();
    await suite.page.getByLabel(/^Path glob/).fill('test/**');
    await suite.page.getByLabel('Reason').selectOption('used_in_tests');
    await suite.page.getByRole('button', { name: 'Create rule' }).click();
    const rules = suite.page.getByRole('table', { name: 'Suppression rules' });
    await rules.getByRole('rowheader', { name: /test\/\*\*/ }).waitFor();
    await expect.poll(async () => {
      await suite.page.reload();
      return rules.getByTestId('rule-findings').textContent();
    }, { timeout: 10_000 }).toBe('1');
    await suite.page.goto(`/repos/${repoId}`);
    await findingsTable().getByRole('link', { name: 'demo/redirect' }).waitFor();
    expect(await findingsTable().getByRole('link', { name: 'demo/secret' }).count()).toBe(0);
  });

  it('no sideways scrolling at 390 px, light and dark', async () => {
    for (const dark of [false, true]) {
      const phone = await newContext(suite.browser, suite.server.url, { width: 390, height: 844, dark });
      await phone.addCookies(await suite.context.cookies());
      const small = await phone.newPage();
      const smallErrors = watchForPageErrors(small);
      await small.goto(`/repos/${repoId}?state=all`);
      await small.getByRole('table', { name: 'Findings' }).getByRole('link', { name: 'demo/xss' }).click();
      await small.getByRole('heading', { name: 'History' }).waitFor();
      await expectNoSidewaysScroll(small, 'finding page');
      await screenshot(small, `triage-finding-390${dark ? '-dark' : ''}`);
      await small.goto(`/repos/${repoId}?state=all`);
      await small.getByRole('table', { name: 'Findings' }).getByRole('checkbox').first().waitFor();
      await expectNoSidewaysScroll(small, 'findings with selection');
      await small.goto(`/orgs/${orgId}?tab=suppressions`);
      await small.getByRole('table', { name: 'Suppression rules' }).waitFor();
      await expectNoSidewaysScroll(small, 'suppression rules');
      await phone.close();
      expect(smallErrors, 'errors thrown in the page at 390 px').toEqual([]);
    }
  });
});
