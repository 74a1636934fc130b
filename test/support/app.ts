import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/index.js';
import { SESSION_COOKIE } from '../../src/auth/session.js';
import type { UserRow } from '../../src/db/schema.js';
import { createTestDatabase, type DbKind, type TestDatabase } from './db.js';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';

export interface TestApp {
  app: App;
  db: Db;
  config: Config;
  database: TestDatabase;
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** A user as if they had signed in through a forge, with a session cookie. */
  user(login: string, options?: { admin?: boolean }): Promise<{ user: UserRow; cookie: string }>;
  cookieFor(userId: string): Promise<string>;
  /** Creates an API key as that user (through the API) and returns its secret. */
  apiKey(cookie: string, body?: Record<string, unknown>): Promise<string>;
  /** Processes every waiting upload now (the test app runs no background workers). */
  drain(): Promise<number>;
  close(): Promise<void>;
}

export async function createTestApp(kind: DbKind, env: Record<string, string> = {}, logger: AppOptions['logger'] = false): Promise<TestApp> {
  const database = await createTestDatabase(kind);
  const config = loadConfig({
    DATABASE_URL: database.url, SERVICE_SESSION_SECRET: TEST_SECRET, SERVICE_BASE_URL: 'http://localhost:8080',
    // Suites make far more requests a minute than a person; the rate-limit tests set their own.
    SERVICE_RATE_LIMIT_USER: '1000000', SERVICE_RATE_LIMIT_IP: '1000000', SERVICE_RATE_LIMIT_AUTH: '1000000',
    ...env,
  });
  const db = openDatabase(config.database);
  await db.migrate();
  const app = await buildApp({ config, db, sessionSecret: TEST_SECRET, logger, workers: 0 });
  await app.ready();
  let forgeIds = 0;

  const testApp: TestApp = {
    app, db, config, database,
    request: (options) => app.inject(asBrowserOn(config.baseUrl, options)),
    async user(login, options = {}) {
      const user = await app.services.users.upsertForgeUser({
        providerId: 'test', forgeUserId: `${login}-${++forgeIds}`, login, name: login, email: `${login}@example.com`, avatarUrl: null,
      });
      if (options.admin) await db.kysely.updateTable('users').set({ is_admin: 1 }).where('id', '=', user.id).execute();
      return { user: { ...user, is_admin: options.admin ? 1 : 0 }, cookie: await testApp.cookieFor(user.id) };
    },
    async cookieFor(userId) {
      const sid = await app.services.sessions.create(userId);
      return `${SESSION_COOKIE}=${encodeURIComponent(app.encodeSecureSession(app.createSecureSession({ sid })))}`;
    },
    async apiKey(cookie, body = {}) {
      const res = await testApp.request({ method: 'POST', url: '/api/v1/apikeys', headers: { cookie }, payload: { name: 'test key', ...body } });
      if (res.statusCode !== 201) throw new Error(`creating a key failed: ${res.statusCode} ${res.body}`);
      return res.json<{ key: string }>().key;
    },
    drain: () => app.services.scans.drain(app.log),
    async close() {
      await app.close();
      await db.close();
      await database.drop();
    },
  };
  return testApp;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Requests as the service's own pages send them: to SERVICE_BASE_URL's host, and, when they change
 * something, with the Origin a browser adds. A test that is about those headers sets its own (or
 * calls app.inject, which adds neither).
 */
function asBrowserOn(baseUrl: string, options: InjectOptions): InjectOptions {
  const base = new URL(baseUrl);
  const headers: Record<string, string | string[] | number | undefined> = { host: base.host, ...(options.headers ?? {}) };
  const method = String(options.method ?? 'GET').toUpperCase();
  if (!SAFE_METHODS.has(method) && headers.origin === undefined && headers['sec-fetch-site'] === undefined) {
    headers.origin = base.origin;
  }
  return { ...options, headers } as InjectOptions;
}

/** The session cookie a response sets, ready to send back. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE);
  if (!cookie) throw new Error(`no session cookie in the response (${res.statusCode})`);
  return `${SESSION_COOKIE}=${encodeURIComponent(cookie.value)}`;
}
