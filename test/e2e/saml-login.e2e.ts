/**
 * SAML sign-in in a real browser, with the IdP on another site than the service (127.0.0.1 against
 * localhost), as in production: the IdP's page posts the Response cross-site, which carries none of
 * the service's SameSite=Lax cookies, and the ACS's 303 to the completion is a top-level GET, which
 * carries the binding cookie set at /auth/login. So the browser that started a sign-in ends signed
 * in, and a page that makes another browser post someone's Response (login CSRF) signs no one in.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startSamlIdp, type SamlIdp } from '../support/saml-idp.js';
import { launchBrowser, newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { freePort, startServer, type RunningServer } from './support/server.js';

let idp: SamlIdp;
let server: RunningServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** A third site: an attacker's page, serving whatever form it is given. */
let attacker: { url: string; page: string; close: () => Promise<void> };

beforeAll(async () => {
  idp = await startSamlIdp();
  const port = await freePort();
  base = `http://localhost:${port}`;
  const provider = { id: 'corp', type: 'saml', name: 'Corp SSO', idp_metadata_url: idp.metadataUrl };
  server = await startServer({ port, env: { SERVICE_BASE_URL: base, SERVICE_PROVIDERS: JSON.stringify([provider]), SERVICE_SAML_ALLOW_PRIVATE: 'true' } });
  const site = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(attacker.page);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  attacker = {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`, page: '',
    close: () => new Promise<void>((resolve) => site.close(() => resolve())),
  };
  browser = await launchBrowser();
  context = await newContext(browser, base);
  page = await context.newPage();
  pageErrors = watchForPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await attacker?.close();
  await idp?.close();
  expect(pageErrors, 'errors thrown in the page').toEqual([]);
});

const me = (p: Page) => p.request.get('/api/v1/me');

describe('SAML sign-in in a browser', () => {
  it("refuses, signing no one in, another person's Response posted by a page on another site", async () => {
    // Mallory starts a sign-in outside this browser and stops at the IdP's form, with her own valid Response.
    idp.nextUser = { nameId: 'mallory@corp.example', attributes: { uid: 'mallory' } };
    const login = await fetch(`${base}/auth/login/corp`, { redirect: 'manual' });
    const form = await idp.authorize(login.headers.get('location')!);
    // saml-bindings-2.0-os 3.5.4: the same auto-submitting form an IdP sends, on her page.
    attacker.page = `<!DOCTYPE html><html><body onload="document.forms[0].submit()"><form method="post" action="${form.action}">`
      + `<input type="hidden" name="SAMLResponse" value="${form.SAMLResponse}"></form></body></html>`;

    // The victim has a sign-in of their own under way (its binding cookie is theirs; it stopped short
    // of the IdP, whose page here would post at once), then opens her page.
    expect((await page.request.get('/auth/login/corp', { maxRedirects: 0 })).status()).toBe(302);
    expect((await context.cookies()).map((c) => c.name)).toEqual(['scanyard_saml_binding']);
    const completion = page.waitForResponse((res) => res.url().startsWith(`${base}/auth/saml/corp/complete?ticket=`));
    await page.goto(attacker.url);
    expect((await completion).status()).toBe(303);
    // Back on the login screen, which says so in its own words, not a raw problem document.
    await page.waitForURL(/\/login\?error=not_verified$/);
    await page.getByText('The sign-in could not be verified, so no one was signed in.').waitFor();
    expect((await me(page)).status()).toBe(401);
  });

  it('signs in the browser that started the sign-in, and lands where it started', async () => {
    idp.nextUser = { nameId: 'ada@corp.example', attributes: { uid: 'ada', displayName: 'Ada Lovelace' } };
    await page.goto('/settings');
    await page.waitForURL(/\/login\?return_to=%2Fsettings$/);
    await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await page.waitForURL(`${base}/settings`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect((await (await me(page)).json() as { login: string }).login).toBe('ada');
    // The binding cookie was used and cleared: only the session is left.
    expect((await context.cookies()).map((c) => c.name)).toEqual(['scanyard_session']);
    await screenshot(page, 'saml-signed-in');
  });
});
