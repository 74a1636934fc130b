import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import type { Db } from '../../src/db/index.js';
import { sarifLog } from '../support/sarif.js';
import {
  client, devLogin, inspectDatabase, mapLimit, postUpload, processGroup, sleep, uploadStates, waitUntilAllComplete,
} from '../support/processes.js';

const BACKLOG = 30;
const RESULTS = 3000;

/** Milliseconds /healthz took to answer, or null when nothing listens yet. */
async function probe(url: string): Promise<number | null> {
  const started = performance.now();
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(15_000) });
    await res.arrayBuffer();
    return performance.now() - started;
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return performance.now() - started;
    return null;
  }
}

// A `serve` instance works through its queue in the same process as its HTTP server (in a thread of
// its own, on SQLite connections of its own): it must keep answering (health checks, API) while it does.
describe('serve answers HTTP while its worker drains a backlog (SQLite)', () => {
  const procs = processGroup();
  let database: TestDatabase;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await procs.killAll();
    await db?.close();
    await database?.drop();
  });

  it('listens before the backlog is worked off and answers /healthz within 2 s throughout', async () => {
    const env = { DATABASE_URL: database.url };
    const receiver = await procs.start('serve', { name: 'serve-receiving', env: { ...env, SERVICE_WORKERS: '0' } });
    const { cookie } = await devLogin(receiver.url!);
    const api = client(receiver.url!, cookie);
    const org = await api.post<{ id: string }>('/api/v1/orgs', { name: 'backlog' });
    const repo = await api.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const { key } = await api.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    const body = sarifLog(Array.from({ length: RESULTS }, (_, j) => ({ rule: `R${j % 30}`, file: `src/b${j}.ts` })));
    await mapLimit(Array.from({ length: BACKLOG }, (_, i) => i), 4, (i) => postUpload(receiver.url!, key, repo.id, body, `b${i}`));
    expect((await receiver.signal('SIGTERM', 30_000)).code).toBe(0);

    db = inspectDatabase(database.url);
    const worker = await procs.start('serve', { name: 'serve-draining', env: { ...env, SERVICE_WORKERS: '1' }, waitUntilReady: false });
    await worker.ready();
    const waitingAtReady = (await uploadStates(db)).filter((u) => u.status !== 'complete').length;

    const latencies: number[] = [];
    for (;;) {
      const states = await uploadStates(db);
      if (states.every((u) => u.status === 'complete')) break;
      const ms = await probe(worker.url!);
      expect(ms, 'serve-draining stopped listening').not.toBeNull();
      latencies.push(ms!);
      await sleep(50);
    }
    await waitUntilAllComplete(db, BACKLOG, 60_000);
    const worst = Math.round(Math.max(0, ...latencies));
    console.info(`backlog: ${waitingAtReady} of ${BACKLOG} uploads still waiting when /readyz first answered; ${latencies.length} probes while draining, slowest ${worst} ms`);

    expect(waitingAtReady, 'uploads still waiting when the server first answered').toBeGreaterThan(0);
    expect(worst).toBeLessThan(2000);
  }, 120_000);
});
