/**
 * Settings → Organization → Forge, against the GitHub emulator (sign-in through its OAuth flow, sync
 * through its GitHub App): linking, the first pass and its counts, a failed pass shown with its
 * reason, "Sync now"; the forge's team with its repositories and roles; the repository list with
 * forge full names and the archived and gone badges.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startGithubEmulator, type GhOrg, type GithubEmulator } from '../support/forge-emulator/github.js';
import { launchBrowser, newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { freePort, startServer, type RunningServer } from './support/server.js';

let gh: GithubEmulator;
let acme: GhOrg;
let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
let orgId = '';

beforeAll(async () => {
  gh = await startGithubEmulator({ pageSize: 3 });
  gh.addUser(101, 'alice');
  gh.addUser(102, 'bob');
  acme = gh.addOrg('acme');
  for (let i = 1; i <= 4; i++) acme.repos.push({ id: gh.nextId(), name: `svc-${i}`, default_branch: 'main', visibility: 'private', archived: i === 3 });
  acme.members.set(101, 'admin').set(102, 'member');
  acme.teams.push({ id: gh.nextId(), slug: 'backend', name: 'Backend', description: 'API people', members: new Set([102]), repos: new Map([[acme.repos[0]!.id, 'push'], [acme.repos[1]!.id, 'admin']]) });
  gh.signInAs(101);
  const port = await freePort();
  const provider = { id: 'github', type: 'github', name: 'GitHub', client_id: 'scanyard-e2e', client_secret: 'e2e-secret', url: gh.origin, api_url: gh.apiUrl, app_id: gh.appId, private_key: gh.privateKey, webhook_secret: 'e2e-hook-secret' };
  server = await startServer({ port, env: { SERVICE_PROVIDERS: JSON.stringify([provider]), SERVICE_FORGE_ALLOW_PRIVATE: 'true' } });
  browser = await launchBrowser();
  context = await newContext(browser, server.url);
  page = await context.newPage();
  pageErrors = watchForPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await gh?.close();
  expect(pageErrors, 'errors thrown in the page').toEqual([]);
});

describe('an organization that follows GitHub', () => {
  it('links to the GitHub organization and shows the first sync with what it brought', async () => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const created = await page.request.post('/api/v1/orgs', { data: { name: 'Acme' }, headers: { origin: server.url } });
    expect(created.status(), await created.text()).toBe(201);
    orgId = (await created.json() as { id: string }).id;

    await page.goto(`/orgs/${orgId}?tab=forge`);
    const panel = page.getByRole('region', { name: 'Forge' });
    await panel.getByLabel(/^Owner/).fill('acme');
    await panel.getByRole('button', { name: 'Link' }).click();
    await panel.getByText('4 repositories, 2 members, 1 teams').waitFor();
    await panel.getByText('GitHub', { exact: false }).first().waitFor();
    expect(await panel.getByText('acme', { exact: true }).isVisible()).toBe(true);
    expect(await panel.getByText('Not yet').count()).toBe(0);
    expect(await panel.getByText('Syncing…').count()).toBe(0);
    await screenshot(page, 'forge-linked');
  });

  it('shows why a pass stopped, and a later "Sync now" that succeeds clears it and marks a deleted repository gone', async () => {
    const panel = page.getByRole('region', { name: 'Forge' });
    gh.inject('error', 1, /\/orgs\/acme\/repos/);
    await panel.getByRole('button', { name: 'Sync now' }).click();
    const alert = panel.getByRole('alert');
    await alert.getByText(/The last sync stopped: .*502/).waitFor();
    await screenshot(page, 'forge-sync-error');

    acme.repos.splice(3, 1);
    await panel.getByRole('button', { name: 'Sync now' }).click();
    await alert.waitFor({ state: 'detached' });
    await panel.getByText('4 repositories, 2 members, 1 teams').waitFor();
  });

  it('lists the repositories with their forge full names and the archived and gone badges', async () => {
    await page.goto(`/orgs/${orgId}?tab=repos`);
    const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await row('svc-1').getByText('acme/svc-1').waitFor();
    expect(await row('svc-3').getByText('Archived', { exact: true }).isVisible()).toBe(true);
    expect(await row('svc-4').getByText('Gone', { exact: true }).isVisible()).toBe(true);
    expect(await row('svc-1').getByText('Archived', { exact: true }).count()).toBe(0);
    expect(await row('svc-1').getByText('Gone', { exact: true }).count()).toBe(0);
    await screenshot(page, 'forge-repos');
  });

  it('shows the forge team with its repositories and its role on each, not editable here', async () => {
    await page.goto(`/orgs/${orgId}?tab=teams`);
    const card = page.locator('.team-card', { hasText: 'Backend' });
    await card.getByText('Follows the forge').waitFor();
    const held = card.getByRole('listitem').filter({ has: page.getByRole('link') });
    await held.filter({ hasText: 'svc-1' }).getByText('Triage', { exact: true }).waitFor();
    expect(await held.filter({ hasText: 'svc-2' }).getByText('Admin', { exact: true }).isVisible()).toBe(true);
    expect(await card.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Add repository' }).count()).toBe(0);
  });
});
