import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { screenshots } from './paths.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export async function newContext(browser: Browser, baseURL: string, options: { width?: number; height?: number; dark?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    colorScheme: options.dark ? 'dark' : 'light',
    reducedMotion: 'reduce',
    deviceScaleFactor: 1,
  });
  context.setDefaultTimeout(15_000);
  return context;
}

/** Saves a full-page screenshot under test/e2e/screenshots/ (a CI artifact, not committed). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/**
 * Collects uncaught errors in the page and anything the Content-Security-Policy blocked, so a test
 * fails on the cause rather than on a symptom later.
 */
export function watchForPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) errors.push(message.text());
  });
  return errors;
}
