import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import type { Db } from '../../src/db/index.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';
import {
  client, devLogin, inspectDatabase, mapLimit, postUpload, processedUploads, processGroup, waitForProcessedLogs, waitUntilAllComplete,
  type AcceptedUpload,
} from '../support/processes.js';

const UPLOADS = 100;
const LEVELS = ['error', 'warning', 'note'] as const; // high, medium, low without security-severity
const SEVERITY = { error: 'high', warning: 'medium', note: 'low' } as const;

/** Upload i: its own category (so its own analysis) with 1 to 5 results of mixed levels. */
function results(i: number): SarifResultSpec[] {
  return Array.from({ length: (i % 5) + 1 }, (_, j) => ({ rule: `R${j}`, file: `src/file-${i}-${j}.ts`, level: LEVELS[(i + j) % 3]! }));
}

interface UploadPage { id: string; status: string; category: string; counts: { new: number; findings: number; unchanged: number } }
interface Status {
  state: string;
  findings: { open: number; critical: number; high: number; medium: number; low: number; info: number };
  analyses: { category: string; last_upload_id: string; status: string; open_findings: number }[];
}

// Issue 7's acceptance: two `serve` instances and one `worker` on one PostgreSQL. Needs a server to
// run against, so it runs where TEST_DATABASE_URL is set (CI sets it).
describe.runIf(process.env.TEST_DATABASE_URL)('several instances on one PostgreSQL', () => {
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

  it('shares sessions between serve instances and processes each of 100 uploads through both exactly once', async () => {
    const env = { DATABASE_URL: database.url, SERVICE_WORKERS: '1' };
    // Started together, as a Procfile would: all three run the migrations at once.
    const [a, b, worker] = await Promise.all([
      procs.start('serve', { name: 'serve-a', env }),
      procs.start('serve', { name: 'serve-b', env }),
      procs.start('worker', { name: 'worker', env }),
    ]);

    // A session started on A works on B.
    const { cookie, user } = await devLogin(a.url!);
    const onA = client(a.url!, cookie);
    const onB = client(b.url!, cookie);
    const me = await onB.get<{ id: string; login: string }>('/api/v1/me');
    expect(me).toMatchObject({ id: user.id, login: user.login });

    // What is made on one instance is seen on the other.
    const org = await onB.post<{ id: string }>('/api/v1/orgs', { name: 'scale' });
    const repo = await onB.post<{ id: string }>(`/api/v1/orgs/${org.id}/repos`, { name: 'api' });
    const { key } = await onA.post<{ key: string }>('/api/v1/apikeys', { name: 'ci', scopes: ['upload'] });
    expect((await onA.get<{ id: string }>(`/api/v1/repos/${repo.id}`)).id).toBe(repo.id);

    const started = performance.now();
    const accepted: AcceptedUpload[] = await mapLimit(Array.from({ length: UPLOADS }, (_, i) => i), 10, (i) =>
      postUpload(i % 2 === 0 ? a.url! : b.url!, key, repo.id, sarifLog(results(i)), `c${i}`));
    expect(new Set(accepted.map((u) => u.id)).size).toBe(UPLOADS);

    db = inspectDatabase(database.url);
    const rows = await waitUntilAllComplete(db, UPLOADS, 60_000);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    // Each upload was claimed once (attempts is the claim count) and its effect committed once.
    expect(rows).toHaveLength(UPLOADS);
    const byCategory = new Map(rows.map((r) => [r.category, r]));
    for (let i = 0; i < UPLOADS; i++) {
      const row = byCategory.get(`c${i}`);
      expect(row, `c${i}`).toMatchObject({ id: accepted[i]!.id, status: 'complete', attempts: 1, new_count: (i % 5) + 1, findings_count: (i % 5) + 1, unchanged_count: 0 });
    }

    // Exactly one process logged each upload as processed.
    await waitForProcessedLogs([a, b, worker], UPLOADS);
    const processedBy = [a, b, worker].map((p) => ({ name: p.name, ids: processedUploads(p) }));
    const all = processedBy.flatMap((p) => p.ids);
    expect(all).toHaveLength(UPLOADS);
    expect(new Set(all)).toEqual(new Set(accepted.map((u) => u.id)));
    console.info(`multi-instance: ${UPLOADS} uploads complete in ${seconds} s; processed by ${processedBy.map((p) => `${p.name} ${p.ids.length}`).join(', ')}`);

    // Totals, read through either instance.
    const expected = { open: 0, critical: 0, high: 0, medium: 0, low: 0, info: 0, dismissed: 0 };
    for (let i = 0; i < UPLOADS; i++) {
      for (const r of results(i)) {
        expected.open++;
        expected[SEVERITY[r.level as keyof typeof SEVERITY]]++;
      }
    }
    const findingRows = await db.kysely.selectFrom('findings').select((eb) => eb.fn.countAll<number>().as('n')).where('repository_id', '=', repo.id).executeTakeFirstOrThrow();
    expect(Number(findingRows.n)).toBe(expected.open);
    for (const instance of [onA, onB]) {
      const status = await instance.get<Status>(`/api/v1/repos/${repo.id}/status`);
      expect(status.state).toBe('complete');
      expect(status.findings).toEqual(expected);
      expect(status.analyses).toHaveLength(UPLOADS);
      for (const analysis of status.analyses) {
        const i = Number(analysis.category.slice(1));
        expect(analysis, analysis.category).toMatchObject({ last_upload_id: accepted[i]!.id, status: 'complete', open_findings: (i % 5) + 1 });
      }
    }
    const res = await fetch(`${b.url}/api/v1/repos/${repo.id}/uploads?per_page=100`, { headers: { cookie } });
    expect(res.headers.get('x-total-count')).toBe(String(UPLOADS));
    const listed = (await res.json()) as UploadPage[];
    expect(listed.every((u) => u.status === 'complete' && u.counts.new === Number(u.category.slice(1)) % 5 + 1)).toBe(true);
  }, 180_000);
});
