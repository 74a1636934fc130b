/**
 * Swagger UI under its own Content-Security-Policy (no inline or eval'd script, no framing): the
 * policy must not break the page it protects. Every operation renders, and nothing is blocked.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newContext, screenshot, watchForPageErrors } from './support/browser.js';
import { startServer, type RunningServer } from './support/server.js';

let server: RunningServer;
let browser: Browser;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await (await newContext(browser, server.url)).newPage();
  pageErrors = watchForPageErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

it('renders every operation of the API with the CSP in force, and nothing blocked', async () => {
  const response = await page.goto('/swagger/index.html');
  expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await page.locator('.opblock').first().waitFor();
  const documented = await (await fetch(`${server.url}/swagger/doc.json`)).json() as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.values(documented.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
  expect(await page.locator('.opblock').count()).toBe(operations);
  await screenshot(page, 'swagger-ui');
  expect(pageErrors).toEqual([]);
});
