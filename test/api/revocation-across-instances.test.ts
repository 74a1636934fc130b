import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.js';
import { openDatabase, type Db } from '../../src/db/index.js';
import { createTestApp, TEST_SECRET, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';

/**
 * Two instances on one database, each trusting the API keys it looked up for a moment
 * (auth/key-cache.ts): what one instance revokes, every instance refuses within one second.
 */
describe.each(DB_KINDS)('revocation seen by every instance on %s', (kind) => {
  let t: TestApp;
  let otherDb: Db;
  let other: App;
  let owner: { user: { id: string }; cookie: string };
  let orgId: string;
  let repoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    otherDb = openDatabase(t.config.database);
    other = await buildApp({ config: t.config, db: otherDb, sessionSecret: TEST_SECRET, logger: false, workers: 0 });
    await other.ready();
    owner = await t.user('owner');
    orgId = (await orgClient(t).createOrg(owner.cookie, 'revoking')).id;
    repoId = (await orgClient(t).createRepo(owner.cookie, orgId, { name: 'api' })).id;
  });
  afterAll(async () => {
    await other?.close();
    await otherDb?.close();
    await t?.close();
  });

  const onA = (options: InjectOptions) => t.request(options);
  const onB = (options: InjectOptions) => other.inject({ ...options, headers: { host: new URL(t.config.baseUrl).host, ...options.headers } });
  const status = (key: string) => ({ url: `/api/v1/repos/${repoId}/status`, headers: { authorization: `Bearer ${key}` } });

  /** Asks each instance until it answers `code`; how long the slowest took, in ms (fails past 3 s). */
  async function untilEvery(code: number, ask: ((options: InjectOptions) => Promise<LightMyRequestResponse>)[], options: InjectOptions): Promise<number> {
    const started = Date.now();
    for (;;) {
      const answers = await Promise.all(ask.map((instance) => instance(options)));
      if (answers.every((res) => res.statusCode === code)) return Date.now() - started;
      if (Date.now() - started > 3000) throw new Error(`still ${answers.map((res) => res.statusCode).join(', ')} after 3 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('refuses a key revoked on instance A on instance B within one second (and on A at once)', async () => {
    const key = await t.apiKey(owner.cookie, { name: 'ci', scopes: ['read'] });
    const id = (await onA({ url: '/api/v1/apikeys?per_page=100', headers: { cookie: owner.cookie } })).json<{ id: string; name: string }[]>().find((k) => k.name === 'ci')!.id;
    // Both instances have just looked the key up, so both would trust it for a while.
    expect((await onA(status(key))).statusCode).toBe(200);
    expect((await onB(status(key))).statusCode).toBe(200);

    expect((await onA({ method: 'DELETE', url: `/api/v1/apikeys/${id}`, headers: { cookie: owner.cookie } })).statusCode).toBe(204);
    const onInstanceA = await onA(status(key));
    expect(onInstanceA.statusCode).toBe(401);
    expect(onInstanceA.json().detail).toBe('The API key is not valid.');
    expect(await untilEvery(401, [onA, onB], status(key))).toBeLessThan(1000);
  });

  it('refuses a member removed on instance A on instance B within one second', async () => {
    const member = await t.user('member');
    await orgClient(t).setMember(owner.cookie, orgId, member.user.id, 'member');
    const key = await t.apiKey(member.cookie, { name: 'member-ci', scopes: ['read'] });
    expect((await onB(status(key))).statusCode).toBe(200);
    expect((await onA(status(key))).statusCode).toBe(200);

    const removed = await onA({ method: 'DELETE', url: `/api/v1/orgs/${orgId}/members/${member.user.id}`, headers: { cookie: owner.cookie } });
    expect(removed.statusCode, removed.body).toBe(204);
    // Invisible now: 404, exactly like a repository that does not exist.
    expect(await untilEvery(404, [onA, onB], status(key))).toBeLessThan(1000);
  });
});
