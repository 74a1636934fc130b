import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

const MiB = 1024 * 1024;

/**
 * SQLite copies its write-ahead log into the database file (a checkpoint) inside the commit that
 * grows the log past 1,000 pages. Where a process has an ingest thread, no commit of either thread
 * checkpoints (main.ts, scans/ingest-thread.ts), so that no request and no upload's results wait for
 * one: commits only append to the log, and the database file takes the pages when the ingest
 * thread's timer checkpoints.
 */
describe('SQLite checkpoints', () => {
  let database: TestDatabase;
  let db: Db;
  afterEach(async () => {
    await db?.close();
    await database?.drop();
  });

  /** Commits 8 MiB (2,000 pages and more) in one transaction; the database file's size after it. */
  async function commitLargeWrite(checkpoints: boolean): Promise<{ file: string; before: number; after: number }> {
    database = await createTestDatabase('sqlite');
    db = openDatabase(database.config, 2, { checkpoints });
    await db.migrate();
    await sql`create table large_values (value blob not null)`.execute(db.kysely);
    await db.checkpoint();
    const file = (database.config as { file: string }).file;
    const before = fs.statSync(file).size;
    await db.kysely.transaction().execute(async (trx) => {
      for (let i = 0; i < 8; i++) await sql`insert into large_values (value) values (${randomBytes(MiB)})`.execute(trx);
    });
    return { file, before, after: fs.statSync(file).size };
  }

  it('are made by the commit that grows the log past 1,000 pages, by default', async () => {
    const { before, after } = await commitLargeWrite(true);
    expect(after - before).toBeGreaterThanOrEqual(8 * MiB);
  });

  it('are never made by a commit of connections that leave them to the ingest thread; checkpoint() makes them', async () => {
    const { file, before, after } = await commitLargeWrite(false);
    expect(after - before).toBeLessThan(MiB);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThanOrEqual(8 * MiB);
    await db.checkpoint();
    expect(fs.statSync(file).size - before).toBeGreaterThanOrEqual(8 * MiB);
    const [row] = (await db.kysely.selectFrom(sql<{ n: number }>`(select count(*) as n from large_values)`.as('c')).select('n').execute());
    expect(row?.n).toBe(8);
  });
});
