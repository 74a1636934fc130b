import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DB_KINDS, type TestDatabase } from '../support/db.js';
import type { Db } from '../../src/db/index.js';
import { sarifLog } from '../support/sarif.js';
import { client, devLogin, inspectDatabase, mapLimit, postUpload, processGroup, sleep, waitFor, waitUntilAllComplete } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const SECRET = 'process-webhook-secret-0123456789';

async function deliveryStates(db: Db) {
  return db.kysely.selectFrom('webhook_deliveries').select(['id', 'webhook_id', 'event', 'status', 'attempts']).orderBy('id').execute();
}

// Issue 17's acceptance: an event committed just before a SIGKILL is delivered after the restart,
// exactly once once the receiver dedupes by delivery id.
describe.each(DB_KINDS)('webhook delivery across a SIGKILL on %s', (kind) => {
  const procs = processGroup();
  let database: TestDatabase;
  let db: Db | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await procs.killAll();
    await receiver?.close();
    await db?.close();
    await database?.drop();
  });

  it('delivers an upload.completed committed before the kill exactly once after the restart', async () => {
    let answering = false;
    // The ping hangs until the kill: deliveries to one hook go in order, so the upload's event waits behind it.
    receiver = await startReceiver(SECRET, () => (answering ? { status: 200 } : 'hang'));
    const env = { DATABASE_URL: database.url, SERVICE_WORKERS: '1', SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true', SERVICE_WEBHOOK_LEASE_SECONDS: '2' };
    const first = await procs.start('serve', { name: 'serve-killed', env });
    const { cookie } = await devLogin(first.url!);
    const api = client(first.url!, cookie);
    const org = await api.post<{ id: string }>('/api/v1/orgs', { name: 'hooks' });
    const repo = await api.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const { key } = await api.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    await api.post(`/api/v1/orgs/${org.id}/webhooks`, { url: `${receiver.url}/in`, secret: SECRET, events: ['upload.completed'] });
    await waitFor('the ping to reach the receiver', async () => receiver!.received.length === 1, 10_000, 20);

    const upload = await postUpload(first.url!, key, repo.id, sarifLog([{ rule: 'R', file: 'a.ts' }]), 'kill');
    db = inspectDatabase(database.url);
    const inspect = db;
    await waitFor('the upload to complete with its delivery written', async () => {
      const row = await inspect.kysely.selectFrom('uploads').select('status').where('id', '=', upload.id).executeTakeFirst();
      const event = (await deliveryStates(inspect)).find((d) => d.event === 'upload.completed');
      return row?.status === 'complete' && event !== undefined;
    }, 8_000, 10);
    expect((await first.signal('SIGKILL', 10_000)).signal).toBe('SIGKILL');
    const atDeath = await deliveryStates(db);
    expect(atDeath.map((d) => [d.event, d.status, Number(d.attempts)])).toEqual([['ping', 'delivering', 1], ['upload.completed', 'pending', 0]]);
    expect(receiver.received.map((r) => r.headers['x-scanyard-event'])).toEqual(['ping']);

    answering = true;
    const second = await procs.start('serve', { name: 'serve-restarted', env });
    await waitFor('both deliveries to succeed', async () => (await deliveryStates(inspect)).every((d) => d.status === 'succeeded'), 30_000, 50);
    // Time for a duplicate to show up, were one coming.
    await sleep(1500);
    const byId = receiver.byDelivery();
    const completed = receiver.received.filter((r) => r.headers['x-scanyard-event'] === 'upload.completed');
    expect(completed).toHaveLength(1);
    expect(JSON.parse(completed[0]!.body)).toMatchObject({ event: 'upload.completed', data: { upload: { id: upload.id } } });
    // The ping cut off by the kill was sent again with its id: a receiver deduping by id acts once.
    expect([...byId.keys()].sort()).toEqual(atDeath.map((d) => d.id).sort());
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    expect(receiver.received.map((r) => r.headers['x-scanyard-event'])).toEqual(['ping', 'ping', 'upload.completed']);
    expect(second.logs().filter((l) => l.msg === 'webhook delivered')).toHaveLength(2);
    expect(first.output() + second.output()).not.toContain(SECRET);
  }, 120_000);
});

describe.each(DB_KINDS)('SIGTERM during a webhook delivery on %s', (kind) => {
  const procs = processGroup();
  let database: TestDatabase;
  let db: Db | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await procs.killAll();
    await receiver?.close();
    await db?.close();
    await database?.drop();
  });

  it('finishes and records the delivery in hand, then exits 0', async () => {
    receiver = await startReceiver(SECRET, () => ({ status: 204, delayMs: 1500 }));
    const proc = await procs.start('serve', { env: { DATABASE_URL: database.url, SERVICE_WORKERS: '1', SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const { cookie } = await devLogin(proc.url!);
    const api = client(proc.url!, cookie);
    const org = await api.post<{ id: string }>('/api/v1/orgs', { name: 'term' });
    await api.post(`/api/v1/orgs/${org.id}/webhooks`, { url: receiver.url, secret: SECRET, events: ['upload.completed'] });
    await waitFor('the ping to reach the receiver', async () => receiver!.received.length === 1, 10_000, 20);
    const exit = await proc.signal('SIGTERM', 20_000);
    expect(exit.code).toBe(0);
    db = inspectDatabase(database.url);
    expect((await deliveryStates(db)).map((d) => [d.event, d.status, Number(d.attempts)])).toEqual([['ping', 'succeeded', 1]]);
    expect(receiver.received).toHaveLength(1);
  }, 60_000);
});

const HOOKS = 4;
const EVENTS = 200;

describe.runIf(process.env.TEST_DATABASE_URL)('two delivery workers on one PostgreSQL', () => {
  const procs = processGroup();
  let database: TestDatabase;
  let db: Db | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await procs.killAll();
    await receiver?.close();
    await db?.close();
    await database?.drop();
  });

  it(`delivers each of ${EVENTS} events once, never one by two workers at the same time, each hook's in order`, async () => {
    receiver = await startReceiver(SECRET);
    const env = { DATABASE_URL: database.url, SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true' };
    const api = await procs.start('serve', { name: 'serve-api-only', env: { ...env, SERVICE_WORKERS: '0' } });
    const { cookie } = await devLogin(api.url!);
    const http = client(api.url!, cookie);
    const org = await http.post<{ id: string }>('/api/v1/orgs', { name: 'many' });
    const { key } = await http.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    const repos: string[] = [];
    const hooks: string[] = [];
    for (let h = 0; h < HOOKS; h++) {
      const repo = await http.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: `repo-${h}` });
      repos.push(repo.id);
      hooks.push((await http.post<{ id: string }>(`/api/v1/orgs/${org.id}/webhooks`, {
        url: `${receiver.url}/hook-${h}`, secret: SECRET, events: ['upload.completed'], repository_ids: [repo.id],
      })).id);
    }
    const [w1, w2] = await Promise.all([
      procs.start('worker', { name: 'worker-1', env: { ...env, SERVICE_WORKERS: '2' } }),
      procs.start('worker', { name: 'worker-2', env: { ...env, SERVICE_WORKERS: '2' } }),
    ]);

    const started = performance.now();
    await mapLimit(Array.from({ length: EVENTS }, (_, i) => i), 8, (i) =>
      postUpload(api.url!, key, repos[i % HOOKS]!, sarifLog([{ rule: `R${i}`, file: `f${i}.ts` }]), `c${i}`));
    db = inspectDatabase(database.url);
    await waitUntilAllComplete(db, EVENTS, 60_000);
    const inspect = db;
    await waitFor(`${EVENTS + HOOKS} deliveries to succeed`, async () => {
      const rows = await deliveryStates(inspect);
      return rows.length === EVENTS + HOOKS && rows.every((d) => d.status === 'succeeded');
    }, 60_000, 100);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    const rows = await deliveryStates(db);
    expect(rows.every((d) => Number(d.attempts) === 1)).toBe(true);
    const byId = receiver.byDelivery();
    expect(byId.size).toBe(EVENTS + HOOKS);
    for (const [id, attempts] of byId) expect(attempts, id).toHaveLength(1);
    expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
    // Each hook received its events in the order they were written (delivery ids are time-ordered).
    for (let h = 0; h < HOOKS; h++) {
      const ids = receiver.received.filter((r) => r.path === `/hook-${h}`).map((r) => String(r.headers['x-scanyard-delivery']));
      expect(ids).toHaveLength(EVENTS / HOOKS + 1);
      expect(ids).toEqual(rows.filter((d) => d.webhook_id === hooks[h]).map((d) => d.id));
    }
    // One hook's deliveries never overlap, whichever worker sends them.
    for (let h = 0; h < HOOKS; h++) expect(receiver.maxInFlight(`/hook-${h}`), `hook ${h}`).toBe(1);
    const delivered = [w1!, w2!].map((w) => w.logs().filter((l) => l.msg === 'webhook delivered').length);
    expect(api.logs().filter((l) => l.msg === 'webhook delivered')).toEqual([]);
    console.info(`webhook workers: ${EVENTS + HOOKS} deliveries in ${seconds} s; worker-1 sent ${delivered[0]}, worker-2 ${delivered[1]} (logs may trail)`);
  }, 180_000);
});
