/**
 * The screens of branches and pull requests, policies and gates, and webhooks, in real Chromium
 * against the built server: switching ref changes what is shown, a pull request shows what it adds
 * to its base, an owner's bad policy is refused with the server's words and a good one judges the
 * next upload, a hook's secret is shown once and its test ping is delivered; nothing scrolls
 * sideways on a phone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { startServer, type RunningServer } from './support/server.js';
import { creator, demoSarif, devLogin, expectNoSidewaysScroll } from './support/session.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const HOOK_SECRET = 'e2e-hook-secret-0123456789abcdef';

let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
let receiver: Receiver;
let apiKey = '';
let orgId = '';
let repoId = '';
let prUploadId = '';

/** Uploads as CI does and waits until the upload is processed (the API's own wait). */
async function upload(rules: string[], query: string): Promise<string> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const res = await fetch(`${server.url}/api/v1/repos/${repoId}/upload${query}`, { method: 'POST', headers, body: demoSarif(rules) });
  expect(res.status, await res.clone().text()).toBe(202);
  const { id } = await res.json() as { id: string };
  const done = await fetch(`${server.url}/api/v1/uploads/${id}?wait=30`, { headers });
  expect((await done.json() as { status: string }).status).toBe('complete');
  return id;
}

beforeAll(async () => {
  server = await startServer({ env: { SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  receiver = await startReceiver(HOOK_SECRET);
  browser = await launchBrowser();
  context = await newContext(browser, server.url);
  page = await context.newPage();
  pageErrors = watchForPageErrors(page);
  await devLogin(page);
  const post = creator(page, server);
  orgId = (await post<{ id: string }>('/api/v1/orgs', { name: 'Acme' })).id;
  repoId = (await post<{ id: string }>(`/api/v1/orgs/${orgId}/repos`, { name: 'payments-api' })).id;
  apiKey = (await post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'], expires_at: null, org_ids: null })).key;
  await upload(['R1', 'R2'], '?ref=main');
  await upload(['R1', 'R5'], '?ref=feature/login');
  // The pull request fixes R2 and brings R3.
  prUploadId = await upload(['R1', 'R3'], '?ref=refs/pull/7/merge&base_ref=main');
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
  expect(pageErrors, 'errors thrown in the page').toEqual([]);
});

describe('branches, gates and webhooks on screen', () => {
  it('switching the ref changes the findings shown; a pull request shows what it adds and fixes against its base', async () => {
    await page.goto(`/repos/${repoId}`);
    const findings = page.getByRole('table', { name: 'Findings' });
    await findings.getByRole('rowheader', { name: /R2/ }).waitFor();
    const rules = async () => (await findings.locator('.finding-rule').allTextContents()).sort();
    expect(await rules()).toEqual(['R1', 'R2']);

    const select = page.getByLabel('Branch or pull request');
    const options = await select.locator('option').allTextContents();
    expect(options[0]).toMatch(/^main · 2 open \(default\)$/);
    expect(options.slice(1)).toEqual(['feature/login · 2 open', 'pr/7 → main · 2 open']);
    expect(await select.locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label')))).toEqual(['Branches', 'Pull requests']);

    await select.selectOption('feature/login');
    await page.waitForURL(/ref=feature%2Flogin/);
    await findings.getByRole('rowheader', { name: /R5/ }).waitFor();
    expect(await rules()).toEqual(['R1', 'R5']);

    await select.selectOption('pr/7');
    await page.waitForURL(/ref=pr%2F7/);
    await findings.getByRole('rowheader', { name: /R3/ }).waitFor();
    expect(await rules()).toEqual(['R1', 'R3']);
    const vsBase = page.getByRole('region', { name: 'Against the base branch' });
    await vsBase.getByRole('link', { name: '+1 new' }).waitFor();
    await vsBase.getByRole('link', { name: '−1 fixed' }).waitFor();
    await screenshot(page, 'refs-pull-request');

    // The ref stays with the tabs: the uploads are the pull request's, each saying its ref.
    await page.getByRole('navigation', { name: 'Repository sections' }).getByRole('link', { name: /Uploads/ }).click();
    await page.waitForURL(/tab=uploads&ref=pr%2F7/);
    const uploads = page.getByRole('table', { name: /Uploads/ });
    await uploads.getByRole('row').nth(1).waitFor();
    expect(await uploads.getByRole('rowheader').count()).toBe(1);
    expect(await uploads.locator('.source-ref').first().textContent()).toMatch(/^pr\/7vs main \+1 −1$/);

    await vsBase.getByRole('link', { name: '+1 new' }).click();
    await page.waitForURL(/vs_base=new/);
    await findings.getByRole('rowheader', { name: /R3/ }).waitFor();
    await findings.getByRole('rowheader', { name: /R1/ }).waitFor({ state: 'detached' });
    expect(await rules()).toEqual(['R3']);
    await page.getByLabel('Compared with the base').selectOption('fixed');
    await findings.getByRole('rowheader', { name: /R2/ }).waitFor();
    expect(await rules()).toEqual(['R2']);

    // The upload itself says what it added and fixed against its base.
    await page.goto(`/repos/${repoId}/uploads/${prUploadId}`);
    await page.getByText('Pull request pr/7 into main').waitFor();
    const notice = page.getByRole('region', { name: 'Against the base branch' });
    expect(await notice.getByRole('link').allTextContents()).toEqual(['+1 new', '−1 fixed']);
    await screenshot(page, 'refs-pull-request-upload');
    await page.getByRole('link', { name: 'Uploads', exact: true }).click();
    await page.waitForURL(/tab=uploads&ref=pr%2F7/);

    // A ref with nothing uploaded says so, with the way back to the default branch.
    await page.goto(`/repos/${repoId}?ref=no-such-branch`);
    await page.getByText('No results for this branch or pull request').waitFor();
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    await page.getByRole('link', { name: 'Show the default branch' }).click();
    await findings.getByRole('rowheader', { name: /R2/ }).waitFor();
  });

  it('an owner edits the policy: a bad one is refused with the server\'s message, a good one judges the next upload', async () => {
    await page.goto(`/orgs/${orgId}?tab=policy`);
    const policyCard = page.getByRole('region', { name: 'Policy' });
    await policyCard.getByText('No rule is set').waitFor();
    await policyCard.getByRole('button', { name: 'Edit policy' }).click();
    const editor = page.getByLabel('Organization policy (JSON)');

    await editor.fill('{"max_open": {"critical": 0,}}');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('alert').getByText(/not valid JSON/).waitFor();

    await editor.fill('{"max_open": {"critical": -1}, "fail_on_new": "severe"}');
    await page.getByRole('button', { name: 'Save policy' }).click();
    const refused = page.getByRole('alert');
    await refused.getByText('The policy was not saved.').waitFor();
    const fields = await refused.locator('.problem-fields li').allTextContents();
    expect(fields.some((f) => f.includes('max_open/critical')), fields.join(' | ')).toBe(true);
    await screenshot(page, 'policy-refused');

    // Demo findings are medium: main will have three open, one more than allowed.
    await editor.fill('{"fail_on_new": "info", "max_open": {"medium": 2}}');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await policyCard.getByRole('button', { name: 'Edit policy' }).waitFor();
    expect(await policyCard.locator('pre').textContent()).toContain('"fail_on_new": "info"');

    // The repository follows it (inherited), and the next upload to main brings R4: the gate fails.
    await page.goto(`/repos/${repoId}?tab=policy`);
    await page.getByText(/follows the organization's policy \(inherited\)/).waitFor();
    const failing = await upload(['R1', 'R2', 'R4'], '?ref=main');
    await page.goto(`/repos/${repoId}?tab=uploads`);
    const row = page.getByRole('table', { name: /Uploads/ }).getByRole('row').nth(1);
    await row.getByText('Failing').waitFor();
    expect(await page.getByRole('table', { name: /Uploads/ }).getByText('Failing').count()).toBe(1);

    await page.goto(`/repos/${repoId}/uploads/${failing}`);
    const gate = page.getByRole('region', { name: 'Gate' });
    await gate.getByText('Failing').waitFor();
    await gate.getByRole('rowheader', { name: 'fail_on_new' }).waitFor();
    await screenshot(page, 'gate-upload');

    // The repository's gate now, and its own policy replacing the organization's.
    await page.goto(`/repos/${repoId}?tab=policy`);
    const repoGate = page.getByRole('region', { name: 'Gate' });
    await repoGate.getByText('Failing').waitFor();
    await repoGate.getByRole('rowheader', { name: 'max_open' }).waitFor();
    await page.getByRole('button', { name: 'Give this repository its own policy' }).click();
    await page.getByLabel('Policy of this repository (JSON)').fill('{}');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText(/has its own policy/).waitFor();
    await page.getByRole('region', { name: 'Gate' }).getByText('Passing').waitFor();
    await page.getByRole('button', { name: 'Follow the organization\'s policy again' }).click();
    await page.getByText(/follows the organization's policy \(inherited\)/).waitFor();
  });

  it('creating a hook shows its secret once; its pings, the test ping too, are delivered and listed', async () => {
    await page.goto(`/orgs/${orgId}?tab=webhooks`);
    await page.getByText('No webhooks yet').waitFor();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByLabel('Payload URL').fill(`${receiver.url}/hook`);
    const offered = await page.getByLabel(/^Secret/).inputValue();
    expect(offered).toMatch(/^[0-9a-f]{64}$/);
    await page.getByLabel(/^Secret/).fill(HOOK_SECRET);
    await page.getByRole('button', { name: 'Create webhook' }).click();

    const secret = page.getByTestId('new-webhook-secret');
    expect(await secret.textContent()).toBe(HOOK_SECRET);
    const hook = page.getByRole('listitem', { name: `Webhook ${receiver.url}/hook` });
    const deliveries = hook.getByRole('table', { name: /Recent deliveries/ });
    await deliveries.getByRole('row', { name: /ping/ }).getByText('Delivered').waitFor();
    await screenshot(page, 'webhook-created');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await secret.waitFor({ state: 'detached' });
    await page.reload();
    await hook.waitFor();
    expect(await page.content()).not.toContain(HOOK_SECRET);

    await hook.getByRole('button', { name: 'Send test ping' }).click();
    await deliveries.getByRole('row', { name: /ping/ }).nth(1).waitFor();
    await expect.poll(async () => deliveries.getByText('Delivered').count(), { timeout: 10_000 }).toBe(2);
    expect(receiver.received.map((r) => r.headers['x-scanyard-event'])).toEqual(['ping', 'ping']);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);

    // Sent again, with the same delivery id.
    const newest = receiver.received[1]!.headers['x-scanyard-delivery'];
    await deliveries.getByRole('button', { name: 'Redeliver' }).first().click();
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(3);
    expect(receiver.received[2]!.headers['x-scanyard-delivery']).toBe(newest);

    // Edited: paused, and the list says so.
    await hook.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Active: deliver events to this URL').uncheck();
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await hook.getByText('Paused').waitFor();
    await screenshot(page, 'webhook-deliveries');
  });

  it('on a phone nothing new scrolls sideways, in light and dark', async () => {
    const cookies = await context.cookies();
    const hooks = await (await page.request.get(`/api/v1/orgs/${orgId}/webhooks`)).json() as { id: string }[];
    const views = [
      [`/repos/${repoId}?ref=pr%2F7`, 'table'], [`/repos/${repoId}?ref=pr%2F7&tab=uploads`, 'table'],
      [`/repos/${repoId}/uploads/${prUploadId}`, '.vs-base'], [`/repos/${repoId}?tab=policy`, '.gate-pass, .gate-fail, .gate-warn'],
      [`/repos/${repoId}?tab=upload`, 'pre'], [`/orgs/${orgId}?tab=policy`, 'pre'],
      [`/orgs/${orgId}?tab=webhooks&hook=${hooks[0]!.id}`, 'table'],
    ] as const;
    for (const dark of [false, true]) {
      const phone = await newContext(browser, server.url, { width: 390, height: 844, dark });
      await phone.addCookies(cookies);
      const p = await phone.newPage();
      const errors = watchForPageErrors(p);
      for (const [url, ready] of views) {
        await p.goto(url);
        await p.locator(ready).first().waitFor();
        await expectNoSidewaysScroll(p, url);
      }
      await p.goto(`/repos/${repoId}?tab=upload`);
      const job = p.getByLabel('GitHub Actions job');
      expect(await job.textContent()).toContain('--repo Acme/payments-api --fail-on-gate');
      await screenshot(p, `ci-jobs-390px${dark ? '-dark' : ''}`);
      await p.goto(`/orgs/${orgId}?tab=webhooks&hook=${hooks[0]!.id}`);
      await p.locator('table').waitFor();
      await screenshot(p, `webhooks-390px${dark ? '-dark' : ''}`);
      expect(errors).toEqual([]);
      await phone.close();
    }
  });
});
