import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../src/db/index.js';
import { newId } from '../../src/db/ids.js';
import { unfinishedUploadOfRef } from '../../src/results/status-store.js';
import { DB_KINDS, useMigratedDatabase } from '../support/db.js';
import { sarifLog } from '../support/sarif.js';
import { quietLog, scansFor, seedRepository, statusRow, storeUpload } from '../support/scans.js';

const HISTORY = 3_000;

/**
 * A branch that CI has uploaded to for a long time: asking whether an upload of it still waits
 * (on every accept, claim and completion) reads the unfinished uploads, not the branch's history
 * (migration 0024), and still answers right.
 */
describe.each(DB_KINDS)('the unfinished upload of a ref with a long history on %s', (kind) => {
  const database = useMigratedDatabase(kind);
  let db: Db;
  let repo: string;
  const main = () => ({ repository_id: repo, ref_kind: 'branch', ref_name: 'main' });

  beforeAll(async () => {
    db = database();
    repo = await seedRepository(db, 'long-history');
    const base = Date.parse('2026-01-01T00:00:00Z');
    const rows = Array.from({ length: HISTORY }, (_, i) => ({
      id: newId(), repository_id: repo, format: 'sarif', status: 'complete', sha256: 'a'.repeat(64), size_bytes: 10, category: '',
      commit_sha: null, ref: null, ref_kind: 'branch', ref_name: 'main', base_ref: null, vs_base_new: null, vs_base_fixed: null,
      tools: null, error: null, created_by: null, api_key_id: null, lease_until: null,
      created_at: new Date(base + i * 60_000).toISOString(), started_at: null, completed_at: new Date(base + i * 60_000 + 1000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 500) await db.kysely.insertInto('uploads').values(rows.slice(i, i + 500)).execute();
    if (kind === 'postgres') await sql`analyze uploads`.execute(db.kysely);
  });

  it('is looked up in the index of unfinished uploads', async () => {
    const query = unfinishedUploadOfRef(db.kysely, main()).compile();
    const plan = kind === 'sqlite'
      ? (await db.kysely.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` })).rows.map((r) => r.detail).join('\n')
      : (await db.kysely.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` })).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('uploads_ref_active');
  });

  it('finds the one upload that waits among thousands done, and none once it is done', async () => {
    expect(await unfinishedUploadOfRef(db.kysely, main()).executeTakeFirst()).toBeUndefined();
    const scans = scansFor(db);
    await storeUpload(scans, repo, sarifLog([{ rule: 'r', file: 'a.js' }]));
    expect(await unfinishedUploadOfRef(db.kysely, main()).executeTakeFirst()).toEqual({ status: 'pending' });
    expect((await statusRow(db, repo))?.state).toBe('pending');
    await scans.drain(quietLog);
    expect(await unfinishedUploadOfRef(db.kysely, main()).executeTakeFirst()).toBeUndefined();
    expect((await statusRow(db, repo))?.state).toBe('complete');
  });
});
