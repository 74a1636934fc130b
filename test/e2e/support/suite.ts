import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, newContext, watchForPageErrors } from './browser.js';
import { startServer, type RunningServer } from './server.js';

/** What a file's browser tests run against: one server, one browser, one page. */
export interface BrowserSuite {
  server: RunningServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The Dev Login session cookie when `signedIn`, for the API calls a test makes beside the page. */
  cookie: string;
  /** A JSON API call as the signed-in user, with our Origin as the browser would send it; it must succeed. */
  api<T>(method: string, pathname: string, body?: unknown): Promise<T>;
}

/**
 * Starts a server (with `env`) and a browser page before the file's tests and stops both after them,
 * failing the file when the page threw. `signedIn` signs the page in with Dev Login through its
 * cookie, so a test starts on any screen; `start` replaces the server's start (a forge in front, say)
 * and `stop` adds to the teardown.
 */
export function browserSuite(options: {
  env?: Record<string, string>; signedIn?: boolean; start?: () => Promise<RunningServer>; stop?: () => Promise<void>;
} = {}): BrowserSuite {
  let pageErrors: string[] = [];
  const suite = {
    cookie: '',
    async api<T>(method: string, pathname: string, body?: unknown): Promise<T> {
      const res = await fetch(`${suite.server.url}${pathname}`, {
        method,
        headers: { cookie: suite.cookie, origin: suite.server.url, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${pathname}: ${await res.clone().text()}`).toBeLessThan(300);
      return res.json() as Promise<T>;
    },
  } as BrowserSuite;
  beforeAll(async () => {
    suite.server = await (options.start ?? (() => startServer({ env: options.env ?? {} })))();
    suite.browser = await launchBrowser();
    suite.context = await newContext(suite.browser, suite.server.url);
    if (options.signedIn) {
      const login = await fetch(`${suite.server.url}/auth/dev-login`, { method: 'POST', headers: { origin: suite.server.url } });
      suite.cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      await suite.context.addCookies(suite.cookie.split('; ').map((pair) => {
        const [name, ...value] = pair.split('=');
        return { name: name!, value: value.join('='), url: suite.server.url };
      }));
    }
    suite.page = await suite.context.newPage();
    pageErrors = watchForPageErrors(suite.page);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
    await options.stop?.();
    expect(pageErrors, 'errors thrown in the page').toEqual([]);
  });
  return suite;
}
