/**
 * Signing in through a forge (the emulator plays Gitea): with a provider configured the login
 * screen offers it and no Dev Login, the OAuth round trip ends signed in on the dashboard, and a
 * refused sign-in comes back to the login screen with the reason in words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startForgeEmulator, type EmulatedForge, type ForgeEmulator } from '../support/forge-emulator.js';
import { launchBrowser, newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { freePort, startServer, type RunningServer } from './support/server.js';

let emulator: ForgeEmulator;
let forge: EmulatedForge;
let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  emulator = await startForgeEmulator();
  const port = await freePort();
  forge = emulator.addForge({ type: 'gitea', clientId: 'scanyard-e2e', clientSecret: 'e2e-client-secret', redirectUri: `http://127.0.0.1:${port}/auth/callback` });
  forge.setNextUser({ id: 4242, login: 'grace', name: 'Grace Hopper', email: 'grace@example.com', avatarUrl: null });
  const provider = { id: 'gitea', type: 'gitea', name: 'Gitea', client_id: 'scanyard-e2e', client_secret: 'e2e-client-secret', url: forge.url, api_url: forge.apiUrl };
  server = await startServer({ port, env: { SERVICE_PROVIDERS: JSON.stringify([provider]) } });
  browser = await launchBrowser();
  context = await newContext(browser, server.url);
  page = await context.newPage();
  pageErrors = watchForPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await emulator?.close();
  expect(pageErrors, 'errors thrown in the page').toEqual([]);
});

describe('sign-in through a forge', () => {
  it('offers the provider and no Dev Login', async () => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Sign in with Gitea' }).waitFor();
    expect(await page.getByRole('button', { name: 'Dev Login' }).count()).toBe(0);
    expect(await page.getByText('Dev Login').count()).toBe(0);
    await screenshot(page, 'login-provider');
  });

  it('shows why a sign-in failed when the forge refuses it', async () => {
    forge.setDeny(true);
    await page.getByRole('link', { name: 'Sign in with Gitea' }).click();
    await page.waitForURL(/\/login\?error=/);
    await page.getByRole('alert').getByText('Sign-in was cancelled on the forge.').waitFor();
    await screenshot(page, 'login-error');
    forge.setDeny(false);
  });

  it('signs in through the forge and lands on the dashboard, signed in', async () => {
    await page.goto('/');
    await page.waitForURL(/\/login\?return_to=%2F$/);
    await page.getByRole('link', { name: 'Sign in with Gitea' }).click();
    await page.waitForURL(`${server.url}/`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await page.getByRole('banner').getByText('grace', { exact: true }).isVisible()).toBe(true);
    const authorize = forge.requests.filter((r) => r.endpoint === 'authorize');
    expect(authorize.at(-1)?.query.redirect_uri).toBe(`${server.url}/auth/callback`);
  });

  it('returns to the page that was asked for before signing in', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto('/settings');
    await page.waitForURL(/\/login\?return_to=%2Fsettings$/);
    await page.getByRole('link', { name: 'Sign in with Gitea' }).click();
    await page.waitForURL(`${server.url}/settings`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByText('signed in with gitea').waitFor();
  });
});
