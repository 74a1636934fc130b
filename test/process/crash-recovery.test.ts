import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DB_KINDS, type TestDatabase } from '../support/db.js';
import type { Db } from '../../src/db/index.js';
import { sarifLog } from '../support/sarif.js';
import {
  client, devLogin, inspectDatabase, mapLimit, postUpload, processedUploads, processGroup, uploadStates, waitFor, waitForProcessedLogs,
  waitUntilAllComplete, type AcceptedUpload,
} from '../support/processes.js';

const UPLOADS = 20;
/** Big enough that an upload takes a noticeable while to process, so the kill lands mid-way. */
const RESULTS = 5000;

// Issue 5's acceptance: SIGKILL while uploads are processing, start again; every acknowledged upload
// reaches complete, none twice.
describe.each(DB_KINDS)('crash recovery on %s', (kind) => {
  const procs = processGroup();
  let database: TestDatabase;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await procs.killAll();
    await db?.close();
    await database?.drop();
  });

  it('completes every acknowledged upload exactly once after a SIGKILL mid-processing', async () => {
    const env = { DATABASE_URL: database.url, SERVICE_UPLOAD_LEASE_SECONDS: '2' };
    // First an instance that only receives: every upload it acknowledged must survive its SIGKILL.
    const receiver = await procs.start('serve', { name: 'serve-receiving', env: { ...env, SERVICE_WORKERS: '0' } });
    const { cookie } = await devLogin(receiver.url!);
    const api = client(receiver.url!, cookie);
    const org = await api.post<{ id: string }>('/api/v1/orgs', { name: 'crash' });
    const repo = await api.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const { key } = await api.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });

    // One document, uploaded under 20 categories: 20 analyses of RESULTS findings each.
    const body = sarifLog(Array.from({ length: RESULTS }, (_, j) => ({ rule: `R${j % 40}`, file: `src/m${j}.ts`, line: j + 1, level: 'warning' as const })));
    const accepted: AcceptedUpload[] = await mapLimit(Array.from({ length: UPLOADS }, (_, i) => i), 4, (i) =>
      postUpload(receiver.url!, key, repo.id, body, `c${i}`));
    expect((await receiver.signal('SIGKILL', 10_000)).signal).toBe('SIGKILL');

    // Then one that processes, killed in the middle of the queue while an upload is being processed.
    // Watched from the moment it is spawned: its workers may start before it answers HTTP.
    const first = await procs.start('serve', { name: 'serve-killed', env: { ...env, SERVICE_WORKERS: '1' }, waitUntilReady: false });
    db = inspectDatabase(database.url);
    const inspect = db;
    await waitFor('an upload to be complete and the next one processing', async () => {
      if (!first.running()) throw new Error(`serve-killed exited by itself: ${JSON.stringify(await first.exited)}`);
      const states = await uploadStates(inspect);
      return states.some((u) => u.status === 'complete') && states.some((u) => u.status === 'processing');
    }, 60_000, 10);
    const killed = await first.signal('SIGKILL', 10_000);
    expect(killed.signal).toBe('SIGKILL');

    const atDeath = await uploadStates(db);
    const interrupted = atDeath.filter((u) => u.status === 'processing').map((u) => u.id);
    const counts = (status: string) => atDeath.filter((u) => u.status === status).length;
    console.info(`crash on ${kind}: at the kill ${counts('complete')} complete, ${interrupted.length} processing, ${counts('pending')} pending`);
    // The kill landed while an upload was being processed: its transaction died with the process.
    expect(interrupted.length).toBeGreaterThanOrEqual(1);
    expect(atDeath.map((u) => u.id).sort()).toEqual(accepted.map((u) => u.id).sort());

    const started = performance.now();
    const second = await procs.start('serve', { name: 'serve-restarted', env: { ...env, SERVICE_WORKERS: '1' } });
    const rows = await waitUntilAllComplete(db, UPLOADS, 60_000);
    console.info(`crash on ${kind}: all ${UPLOADS} complete ${((performance.now() - started) / 1000).toFixed(1)} s after the restart began`);

    // Every acknowledged upload is complete, with the effect of exactly one processing: each
    // analysis's findings are all new, none counted again as unchanged.
    expect(rows.map((u) => u.id).sort()).toEqual(accepted.map((u) => u.id).sort());
    for (const row of rows) {
      expect(row, row.category).toMatchObject({ status: 'complete', new_count: RESULTS, findings_count: RESULTS, unchanged_count: 0, fixed_count: 0, reopened_count: 0 });
      // Claimed once, or (the interrupted ones) once more after their lease ran out.
      expect(row.attempts, row.category).toBe(interrupted.includes(row.id) ? 2 : 1);
    }
    // The restarted instance processed exactly what was not complete at the kill, each once. (The
    // killed one's last log lines may be lost with it: logs are written asynchronously.)
    const notDoneAtDeath = atDeath.filter((u) => u.status !== 'complete').map((u) => u.id);
    await waitForProcessedLogs([second], notDoneAtDeath.length);
    const processedAfter = processedUploads(second);
    expect([...processedAfter].sort()).toEqual(notDoneAtDeath.sort());
    const completeAtDeath = new Set(atDeath.filter((u) => u.status === 'complete').map((u) => u.id));
    expect(processedUploads(first).filter((id) => !completeAtDeath.has(id))).toEqual([]);

    const findings = await db.kysely.selectFrom('findings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(findings.n)).toBe(UPLOADS * RESULTS);
    const afterApi = client(second.url!, cookie);
    const status = await afterApi.get<{ state: string; findings: { open: number; medium: number }; analyses: { open_findings: number; status: string }[] }>(`/api/v1/repos/${repo.id}/status`);
    expect(status.state).toBe('complete');
    expect(status.findings).toMatchObject({ open: UPLOADS * RESULTS, medium: UPLOADS * RESULTS });
    expect(status.analyses).toHaveLength(UPLOADS);
    expect(status.analyses.every((a) => a.open_findings === RESULTS && a.status === 'complete')).toBe(true);
  }, 180_000);
});
