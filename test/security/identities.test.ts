/**
 * Class 3: identities that cannot be borrowed. The dev user stops acting once a provider signs people
 * in; SERVICE_ADMINS login entries are pinned to the forge account of their first sign-in.
 */
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/index.js';
import { sessionCookie, TEST_SECRET } from '../support/app.js';
import { createTestDatabase, DB_KINDS, type DbKind, type TestDatabase } from '../support/db.js';
import { startForgeEmulator, type EmulatedForge, type EmulatedUser, type ForgeEmulator } from '../support/forge-emulator.js';

const BASE = 'http://localhost:8080';
const SAME_ORIGIN = { host: 'localhost:8080', origin: BASE };

interface Instance {
  app: App;
  db: Db;
  logs: string[];
  close(): Promise<void>;
}

/** One instance of the service on a database that outlives it, as a restart or a second instance would be. */
async function instanceOn(database: TestDatabase, env: Record<string, string>): Promise<Instance> {
  const config = loadConfig({
    DATABASE_URL: database.url, SERVICE_SESSION_SECRET: TEST_SECRET, SERVICE_BASE_URL: BASE,
    SERVICE_RATE_LIMIT_USER: '1000000', SERVICE_RATE_LIMIT_IP: '1000000', SERVICE_RATE_LIMIT_AUTH: '1000000', ...env,
  });
  const db = openDatabase(config.database);
  await db.migrate();
  const logs: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { logs.push(String(chunk)); done(); } });
  const app = await buildApp({ config, db, sessionSecret: TEST_SECRET, logger: { stream }, workers: 0 });
  await app.ready();
  return { app, db, logs, close: async () => { await app.close(); await db.close(); } };
}

function providersFor(forge: EmulatedForge): string {
  return JSON.stringify([{ id: 'gh', ...forge.config, name: 'GitHub' }]);
}

/** What a browser does: /auth/login → the forge → back to /auth/callback with the cookie. */
async function signIn(app: App, forge: EmulatedForge, user: EmulatedUser): Promise<string> {
  forge.setNextUser(user);
  const login = await app.inject({ url: '/auth/login/gh', headers: { host: 'localhost:8080' } });
  const atForge = await fetch(login.headers.location as string, { redirect: 'manual' });
  const back = new URL(atForge.headers.get('location')!);
  const res = await app.inject({ url: `/auth/callback${back.search}`, headers: { host: 'localhost:8080', cookie: sessionCookie(login) } });
  expect(res.headers.location).toBe('/');
  return sessionCookie(res);
}

const me = (app: App, headers: Record<string, string>): Promise<LightMyRequestResponse> =>
  app.inject({ url: '/api/v1/me', headers: { host: 'localhost:8080', ...headers } });

describe.each(DB_KINDS)('identities on %s', (kind: DbKind) => {
  let emulator: ForgeEmulator;
  let forge: EmulatedForge;
  beforeAll(async () => {
    emulator = await startForgeEmulator();
    forge = emulator.addForge({ type: 'github', redirectUri: `${BASE}/auth/callback` });
  });
  afterAll(() => emulator.close());

  describe('the dev user once a provider is configured', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
    });
    afterAll(() => database.drop());

    it('refuses its sessions and keys, offers no dev login, and says so at start', async () => {
      const local = await instanceOn(database, {});
      let cookie: string;
      let key: string;
      try {
        const login = await local.app.inject({ method: 'POST', url: '/auth/dev-login', headers: SAME_ORIGIN });
        expect(login.statusCode).toBe(200);
        cookie = sessionCookie(login);
        const created = await local.app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: { ...SAME_ORIGIN, cookie }, payload: { name: 'dev key' } });
        key = created.json().key;
        expect((await me(local.app, { cookie })).json()).toMatchObject({ login: 'dev', is_admin: true });
        expect((await me(local.app, { authorization: `Bearer ${key}` })).statusCode).toBe(200);
      } finally {
        await local.close();
      }

      // Any provider: a forge, or an identity provider alone (OpenID Connect, SAML; nothing is fetched at start).
      const saml = { id: 'corp', type: 'saml', name: 'Corp', idp_metadata_file: fileURLToPath(new URL('../fixtures/saml/idp-metadata.xml', import.meta.url)) };
      const oidc = { id: 'sso', type: 'oidc', name: 'SSO', issuer: 'https://sso.example/realms/corp', client_id: 'c', client_secret: 's' };
      for (const providers of [JSON.stringify([saml]), JSON.stringify([oidc])]) {
        const withIdp = await instanceOn(database, { SERVICE_PROVIDERS: providers });
        try {
          expect((await me(withIdp.app, { cookie })).statusCode, providers).toBe(401);
          expect((await me(withIdp.app, { authorization: `Bearer ${key}` })).statusCode, providers).toBe(401);
          expect(withIdp.logs.join('')).toContain('the local dev user can no longer act');
        } finally {
          await withIdp.close();
        }
      }
      const withForge = await instanceOn(database, { SERVICE_PROVIDERS: providersFor(forge) });
      try {
        expect((await me(withForge.app, { cookie })).statusCode).toBe(401);
        expect((await me(withForge.app, { authorization: `Bearer ${key}` })).statusCode).toBe(401);
        const audit = await withForge.app.inject({ url: '/api/v1/audit', headers: { host: 'localhost:8080', authorization: `Bearer ${key}` } });
        expect(audit.statusCode).toBe(401);
        const orgByCookie = await withForge.app.inject({ method: 'POST', url: '/api/v1/orgs', headers: { ...SAME_ORIGIN, cookie }, payload: { name: 'by-dev' } });
        expect(orgByCookie.statusCode).toBe(401);
        expect((await withForge.app.inject({ method: 'POST', url: '/auth/dev-login', headers: SAME_ORIGIN })).statusCode).toBe(404);
        expect(withForge.logs.join('')).toContain('the local dev user can no longer act');
      } finally {
        await withForge.close();
      }
    });

    it('says nothing about a dev user that never existed', async () => {
      const fresh = await createTestDatabase(kind);
      const instance = await instanceOn(fresh, { SERVICE_PROVIDERS: providersFor(forge) });
      try {
        expect(instance.logs.join('')).not.toContain('dev user');
      } finally {
        await instance.close();
        await fresh.drop();
      }
    });
  });

  describe('SERVICE_ADMINS bound to forge accounts', () => {
    let database: TestDatabase;
    let instance: Instance;
    const env = () => ({ SERVICE_PROVIDERS: providersFor(forge), SERVICE_ADMINS: 'gh:alice, gh:id:4242, carol' });
    const isAdmin = async (app: App, cookie: string) => (await me(app, { cookie })).json().is_admin as boolean;
    const account = (id: number, login: string): EmulatedUser => ({ id, login, name: null, email: null, avatarUrl: null });

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      instance = await instanceOn(database, env());
    });
    afterAll(async () => {
      await instance.close();
      await database.drop();
    });

    it('pins a provider:login entry to the account of its first sign-in, logs it, and keeps it through a rename', async () => {
      const alice = await signIn(instance.app, forge, account(1, 'alice'));
      expect(await isAdmin(instance.app, alice)).toBe(true);
      const pin = await instance.db.kysely.selectFrom('admin_pins').selectAll().where('entry', '=', 'gh:alice').executeTakeFirstOrThrow();
      expect(pin).toMatchObject({ provider_id: 'gh', forge_user_id: '1' });
      const logged = instance.logs.map((line) => JSON.parse(line)).find((line) => line.msg?.includes('pinned'));
      expect(logged).toMatchObject({ entry: 'gh:alice', provider: 'gh', forge_user_id: '1' });

      const renamed = await signIn(instance.app, forge, account(1, 'alice-renamed'));
      expect(await isAdmin(instance.app, renamed)).toBe(true);
    });

    it('does not make an admin of another account that later takes the login, in any case', async () => {
      for (const [id, login] of [[2, 'alice'], [3, 'ALICE']] as const) {
        const taker = await signIn(instance.app, forge, account(id, login));
        expect(await isAdmin(instance.app, taker)).toBe(false);
        const audit = await instance.app.inject({ url: '/api/v1/audit', headers: { host: 'localhost:8080', cookie: taker } });
        expect(audit.statusCode).toBe(403);
      }
      const pin = await instance.db.kysely.selectFrom('admin_pins').select('forge_user_id').where('entry', '=', 'gh:alice').executeTakeFirstOrThrow();
      expect(pin.forge_user_id).toBe('1');
    });

    it('makes an admin of the account a provider:id entry names, whatever its login', async () => {
      const named = await signIn(instance.app, forge, account(4242, 'anyone'));
      expect(await isAdmin(instance.app, named)).toBe(true);
      const other = await signIn(instance.app, forge, account(4243, 'anyone-else'));
      expect(await isAdmin(instance.app, other)).toBe(false);
    });

    it('pins a bare login entry the same way', async () => {
      const carol = await signIn(instance.app, forge, account(7, 'carol'));
      expect(await isAdmin(instance.app, carol)).toBe(true);
      const impostor = await signIn(instance.app, forge, account(8, 'carol'));
      expect(await isAdmin(instance.app, impostor)).toBe(false);
    });

    it('keeps the pins for another instance on the same database', async () => {
      const second = await instanceOn(database, env());
      try {
        expect(await isAdmin(second.app, await signIn(second.app, forge, account(1, 'alice-renamed')))).toBe(true);
        expect(await isAdmin(second.app, await signIn(second.app, forge, account(2, 'alice')))).toBe(false);
        // Nothing is pinned again: the instance found the existing pins.
        expect(second.logs.join('')).not.toContain('pinned');
      } finally {
        await second.close();
      }
    });
  });
});

describe('SERVICE_ADMINS entries', () => {
  it.each(['gh:id:', 'a:b:c', 'gh:id:1:2', ':alice', 'gh:', 'ali ce'])('refuses %j with a message naming the variable', (value) => {
    expect(() => loadConfig({ DATABASE_URL: 'sqlite::memory:', SERVICE_ADMINS: value })).toThrow(/^SERVICE_ADMINS/);
  });

  it('reads logins, provider:login and provider:id entries', () => {
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:', SERVICE_ADMINS: 'Alice, gh:Bob, gh:id:{5f1a-uuid}' }).admins).toEqual([
      { kind: 'login', provider: null, login: 'Alice', key: 'alice' },
      { kind: 'login', provider: 'gh', login: 'Bob', key: 'gh:bob' },
      { kind: 'id', provider: 'gh', forgeUserId: '{5f1a-uuid}', key: 'gh:id:{5f1a-uuid}' },
    ]);
  });
});
