import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import type { Db } from '../../src/db/index.js';
import { sarifLog } from '../support/sarif.js';
import {
  client, devLogin, inspectDatabase, postUpload, processedUploads, processGroup, sleep, uploadStates, waitFor, waitForProcessedLogs,
  waitUntilAllComplete, type ServiceProcess,
} from '../support/processes.js';

/** Large enough that processing takes a while (so a signal lands mid-way). */
const BIG = 20_000;
const bigSarif = (tag: string) => sarifLog(Array.from({ length: BIG }, (_, j) => ({ rule: `R${j % 25}`, file: `src/${tag}/f${j}.ts`, level: 'note' as const })));

interface Tenant { cookie: string; repoId: string; key: string }

async function tenant(url: string, orgName: string): Promise<Tenant> {
  const { cookie } = await devLogin(url);
  const api = client(url, cookie);
  const org = await api.post<{ id: string }>('/api/v1/orgs', { name: orgName });
  const repo = await api.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
  const { key } = await api.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
  return { cookie, repoId: repo.id, key };
}

/**
 * An upload whose body is sent in two parts, on a keep-alive connection as CI clients use: after the
 * first part the request is in flight until finish() sends the rest.
 */
function slowUpload(url: string, t: Tenant, body: string, category: string) {
  const agent = new http.Agent({ keepAlive: true });
  const half = Math.floor(body.length / 2);
  const req = http.request(`${url}/api/v1/repos/${t.repoId}/upload?category=${category}`, {
    method: 'POST', agent, headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/sarif+json' },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.once('error', reject);
    });
  });
  response.catch(() => undefined); // awaited by the test; not an unhandled rejection if it fails first
  req.write(body.slice(0, half));
  return {
    response,
    finish: () => req.end(body.slice(half)),
    close: () => agent.destroy(),
  };
}

/** A GET on a new connection: its status, or the connection error's code. */
function freshRequest(url: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(String(res.statusCode));
    });
    req.once('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** The request has reached the service: it logged the request line. */
const hasReceived = (proc: ServiceProcess, category: string) =>
  proc.logs().some((l) => l.msg === 'incoming request' && String((l.req as { url?: string } | undefined)?.url).includes(`category=${category}`));

// Issue 2: graceful shutdown. SIGTERM/SIGINT stop accepting, finish in-flight requests and the upload
// being processed (or leave it claimable), close the database and exit 0.
describe('graceful shutdown (SQLite)', () => {
  const procs = processGroup();
  // One database per test, so that what one leaves behind cannot change the other.
  const databases: TestDatabase[] = [];
  const dbs: Db[] = [];
  const fresh = async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const db = inspectDatabase(database.url);
    dbs.push(db);
    return { database, db };
  };
  afterAll(async () => {
    await procs.killAll();
    for (const db of dbs) await db.close();
    for (const database of databases) await database.drop();
  });

  it('on SIGTERM answers the request in flight, deals with the upload in hand, and exits 0', async () => {
    const { database, db } = await fresh();
    const env = { DATABASE_URL: database.url, SERVICE_WORKERS: '1' };
    const server = await procs.start('serve', { name: 'serve-terminated', env });
    const t = await tenant(server.url!, 'sigterm');

    // A request in flight: half of its body sent.
    const inflight = slowUpload(server.url!, t, sarifLog([{ rule: 'late', file: 'src/late.ts', level: 'error' }]), 'inflight');
    try {
      await waitFor('the service to receive the in-flight request', async () => hasReceived(server, 'inflight'), 15_000);

      // An upload being processed.
      const big = await postUpload(server.url!, t.key, t.repoId, bigSarif('big'), 'big');
      await waitFor('the big upload to be processing', async () =>
        (await uploadStates(db)).find((u) => u.id === big.id)?.status === 'processing', 30_000, 10);

      // Bounded well under the 30 s grace period process managers give before SIGKILL.
      const exiting = server.signal('SIGTERM', 20_000);
      await waitFor('the service to start shutting down', async () => server.logs().some((l) => l.msg?.startsWith('shutting down')), 20_000);
      await sleep(200);
      // It serves no new request...
      expect(await freshRequest(`${server.url}/healthz`)).toMatch(/^(ECONNREFUSED|503)$/);
      // ...but the request it had is finished and answered.
      inflight.finish();
      const answer = await inflight.response;
      expect(answer.status, answer.body).toBe(202);
      const answeredAt = performance.now();
      const exit = await exiting;
      const exitSeconds = (performance.now() - answeredAt) / 1000;
      expect(exit).toEqual({ code: 0, signal: null });
      // Not held open by the client's idle keep-alive connection.
      expect(exitSeconds).toBeLessThan(10);

      // The big upload was finished before the exit, or given back: never left half-claimed.
      const afterExit = await uploadStates(db);
      const bigAfter = afterExit.find((u) => u.id === big.id)!;
      expect(['complete', 'pending']).toContain(bigAfter.status);
      // The upload the in-flight request stored is kept (processed already, or waiting).
      const late = afterExit.find((u) => u.id === JSON.parse(answer.body).id);
      expect(['complete', 'pending']).toContain(late?.status);
      console.info(`shutdown: exit ${exitSeconds.toFixed(1)} s after the in-flight answer; big upload ${bigAfter.status} at exit`);

      const restarted = await procs.start('serve', { name: 'serve-restarted', env });
      const rows = await waitUntilAllComplete(db, 2, 60_000);
      expect(rows.find((u) => u.id === big.id)).toMatchObject({ status: 'complete', new_count: BIG, unchanged_count: 0 });
      expect(rows.find((u) => u.category === 'inflight')).toMatchObject({ status: 'complete', new_count: 1 });
      // Each was processed once, by whichever instance had it.
      await waitForProcessedLogs([server, restarted], rows.length);
      const processed = [...processedUploads(server), ...processedUploads(restarted)];
      expect(processed.sort()).toEqual(rows.map((u) => u.id).sort());
      expect((await restarted.signal('SIGTERM', 30_000)).code).toBe(0);
    } finally {
      inflight.close();
    }
  }, 120_000);

  it('on SIGINT a worker finishes the upload in hand and exits 0, and so does an idle serve', async () => {
    const { database, db } = await fresh();
    const env = { DATABASE_URL: database.url };
    const server = await procs.start('serve', { name: 'serve-interrupted', env: { ...env, SERVICE_WORKERS: '0' } });
    const worker = await procs.start('worker', { name: 'worker-interrupted', env: { ...env, SERVICE_WORKERS: '1' } });
    const t = await tenant(server.url!, 'sigint');

    const upload = await postUpload(server.url!, t.key, t.repoId, bigSarif('sigint'), 'sigint');
    await waitFor('the worker to take the upload', async () =>
      (await uploadStates(db)).find((u) => u.id === upload.id)?.status === 'processing', 30_000, 10);
    expect(await worker.signal('SIGINT', 30_000)).toEqual({ code: 0, signal: null });
    const row = (await uploadStates(db)).find((u) => u.id === upload.id)!;
    expect(row).toMatchObject({ status: 'complete', attempts: 1, new_count: BIG });

    expect(await server.signal('SIGINT', 30_000)).toEqual({ code: 0, signal: null });
    expect(processedUploads(server)).toEqual([]);
  }, 120_000);
});
