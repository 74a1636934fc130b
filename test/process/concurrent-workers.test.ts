import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import type { Db } from '../../src/db/index.js';
import { sarifLog } from '../support/sarif.js';
import {
  client, devLogin, inspectDatabase, postUpload, processedUploads, processGroup, waitForProcessedLogs, waitUntilAllComplete,
  type AcceptedUpload,
} from '../support/processes.js';

const REPOS = 5;
const PER_REPO = 10;
/** Upload n of a repository has n + 1 results (its own category), so every total is known. */
const resultsOf = (n: number) => n + 1;

// Issue 5's acceptance: two workers on one PostgreSQL, 50 concurrent uploads, each processed once.
describe.runIf(process.env.TEST_DATABASE_URL)('two worker processes on one PostgreSQL', () => {
  const procs = processGroup();
  let database: TestDatabase;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await procs.killAll();
    await db?.close();
    await database?.drop();
  });

  it('processes each of 50 concurrent uploads exactly once, and serve with SERVICE_WORKERS=0 processes none', async () => {
    const env = { DATABASE_URL: database.url };
    const api = await procs.start('serve', { name: 'serve-api-only', env: { ...env, SERVICE_WORKERS: '0' } });
    const [w1, w2] = await Promise.all([
      procs.start('worker', { name: 'worker-1', env: { ...env, SERVICE_WORKERS: '2' } }),
      procs.start('worker', { name: 'worker-2', env: { ...env, SERVICE_WORKERS: '2' } }),
    ]);
    expect(w1.logs().find((l) => l.msg === 'ingest workers started')).toMatchObject({ workers: 2 });

    const { cookie } = await devLogin(api.url!);
    const http = client(api.url!, cookie);
    const org = await http.post<{ id: string }>('/api/v1/orgs', { name: 'workers' });
    const repos: string[] = [];
    for (let r = 0; r < REPOS; r++) repos.push((await http.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: `repo-${r}` })).id);
    const { key } = await http.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });

    // All 50 at once.
    const jobs = repos.flatMap((repoId, r) => Array.from({ length: PER_REPO }, (_, n) => ({ repoId, r, n })));
    const started = performance.now();
    const accepted: AcceptedUpload[] = await Promise.all(jobs.map(({ repoId, r, n }) => postUpload(api.url!, key, repoId,
      sarifLog(Array.from({ length: resultsOf(n) }, (_, j) => ({ rule: `R${j}`, file: `src/r${r}/u${n}/f${j}.ts`, level: 'error' as const }))), `u${n}`)));
    expect(new Set(accepted.map((u) => u.id)).size).toBe(REPOS * PER_REPO);

    db = inspectDatabase(database.url);
    const rows = await waitUntilAllComplete(db, REPOS * PER_REPO, 60_000);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    // Claimed once each (no claim was taken twice) and committed once each.
    expect(rows).toHaveLength(REPOS * PER_REPO);
    for (const row of rows) {
      const n = Number(row.category.slice(1));
      expect(row, row.id).toMatchObject({ status: 'complete', attempts: 1, new_count: resultsOf(n), findings_count: resultsOf(n), unchanged_count: 0 });
    }
    await waitForProcessedLogs([w1, w2], REPOS * PER_REPO);
    const byWorker = [w1, w2].map((w) => processedUploads(w));
    const all = byWorker.flat();
    expect(all).toHaveLength(REPOS * PER_REPO);
    expect(new Set(all)).toEqual(new Set(accepted.map((u) => u.id)));
    expect(processedUploads(api)).toEqual([]);
    console.info(`concurrent workers: ${REPOS * PER_REPO} uploads complete in ${seconds} s; worker-1 ${byWorker[0]!.length}, worker-2 ${byWorker[1]!.length}`);

    // Final counts per repository, through the API.
    const perRepo = Array.from({ length: PER_REPO }, (_, n) => resultsOf(n)).reduce((a, b) => a + b, 0);
    for (const repoId of repos) {
      const status = await http.get<{ state: string; findings: { open: number; high: number }; analyses: unknown[] }>(`/api/v1/repos/${repoId}/status`);
      expect(status).toMatchObject({ state: 'complete', findings: { open: perRepo, high: perRepo } });
      expect(status.analyses).toHaveLength(PER_REPO);
    }
    const findings = await db.kysely.selectFrom('findings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(findings.n)).toBe(REPOS * perRepo);
  }, 180_000);
});
