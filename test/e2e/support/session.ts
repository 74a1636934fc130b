import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { RunningServer } from './server.js';

/** Signs the page in with Dev Login, as a person would, and waits for the dashboard. */
export async function devLogin(page: Page): Promise<void> {
  await page.goto('/login');
  await page.getByRole('button', { name: 'Dev Login' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

/**
 * Creates things as the signed-in page's user (its session cookie), with our Origin as the browser
 * would send it; each call must answer 201.
 */
export function creator(page: Page, server: RunningServer) {
  return async <T>(url: string, data: object): Promise<T> => {
    const res = await page.request.post(url, { data, headers: { origin: server.url } });
    expect(res.status(), await res.text()).toBe(201);
    return await res.json() as T;
  };
}

/** A SARIF document from a made-up tool with one (medium) result per rule, all in one file. */
export function demoSarif(rules: string[]): string {
  const results = rules.map((rule) => ({
    ruleId: rule,
    message: { text: `Problem ${rule}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: 'src/demo.js' }, region: { startLine: 3 } } }],
  }));
  return JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Demo' } }, results }] });
}

/** The elements that reach past the right edge of a 390 px screen, to name the culprit of an overflow. */
const WIDER_THAN_PHONE = `[...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > 390.5)
  .map((el) => el.tagName.toLowerCase() + '.' + el.className).slice(0, 5)`;

/** Fails when the page scrolls sideways at 390 px, naming the elements that stick out. */
export async function expectNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const wider = await page.evaluate<string[]>(WIDER_THAN_PHONE);
  expect(await page.evaluate('document.documentElement.scrollWidth'), `${what}: ${wider.join(', ')}`).toBeLessThanOrEqual(390);
}
