import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/index.js';
import { bulkInsert } from '../../src/db/bulk-insert.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * Another connection's transaction (the ingest thread's, another instance's) holds SQLite's write
 * lock: this instance's writes wait for it without holding the event loop, and its reads go on.
 */
describe('SQLite connections of one instance while another connection writes', () => {
  let database: TestDatabase;
  let db: Db;
  let other: SQLite.Database;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    db = openDatabase(database.config);
    await db.migrate();
    other = new SQLite((database.config as { file: string }).file);
  });
  afterAll(async () => {
    other.close();
    await db.close();
    await database.drop();
  });

  const orgRow = (id: string) => ({ id, name: id, name_key: id, description: '', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });

  it('a write and a transaction wait for the lock asynchronously; reads and timers go on meanwhile', async () => {
    other.exec('begin immediate');
    other.prepare('insert into orgs (id, name, name_key, description, created_at, updated_at) values (?, ?, ?, ?, ?, ?)')
      .run(...Object.values(orgRow('held')));
    const settled: string[] = [];
    const write = db.kysely.insertInto('orgs').values(orgRow('waiting-write')).execute().then(() => settled.push('write'));
    const transaction = db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('orgs').values(orgRow('waiting-transaction')).execute();
    }).then(() => settled.push('transaction'));

    const loopStarted = performance.now();
    await sleep(100);
    // The event loop was free: the timer fired on time, not after a blocking wait for the lock.
    expect(performance.now() - loopStarted).toBeLessThan(1000);
    expect(settled).toEqual([]);
    // A read is answered while both writers wait, and sees only what is committed.
    const names = (await db.kysely.selectFrom('orgs').select('name').execute()).map((row) => row.name);
    expect(names).not.toContain('held');

    other.exec('commit');
    await Promise.all([write, transaction]);
    const after = (await db.kysely.selectFrom('orgs').select('name').orderBy('name').execute()).map((row) => row.name);
    expect(after).toEqual(expect.arrayContaining(['held', 'waiting-transaction', 'waiting-write']));
  });

  it('a bulk insert is part of the transaction it runs in', async () => {
    await expect(db.kysely.transaction().execute(async (trx) => {
      await bulkInsert({ trx, dialect: 'sqlite' }, 'orgs', { id: 'text', name: 'text', name_key: 'text', description: 'text', created_at: 'text', updated_at: 'text' },
        ['bulk-1', 'bulk-2'], orgRow);
      expect(await trx.selectFrom('orgs').select('id').where('id', 'in', ['bulk-1', 'bulk-2']).execute()).toHaveLength(2);
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await db.kysely.selectFrom('orgs').select('id').where('id', 'in', ['bulk-1', 'bulk-2']).execute()).toEqual([]);
  });
});

/**
 * Readers return arrays that the driver makes into rows, by the column names it read as the statement
 * ran: the rows must be what better-sqlite3's own objects were, also after the schema changed under a
 * statement the connection keeps prepared.
 */
describe('SQLite rows', () => {
  let database: TestDatabase;
  let db: Db;
  let other: SQLite.Database;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    // One connection, so every query runs on the statements it keeps.
    db = openDatabase(database.config, 1);
    other = new SQLite((database.config as { file: string }).file);
    other.exec(`create table tools (id text primary key, name text not null, runs integer, score real, raw blob)`);
    other.prepare('insert into tools values (?, ?, ?, ?, ?)').run('t1', 'Semgrep', 3, 0.5, Buffer.from('x'));
    other.prepare('insert into tools values (?, ?, ?, ?, ?)').run('t2', 'Trivy', null, null, null);
  });
  afterAll(async () => {
    other.close();
    await db.close();
    await database.drop();
  });

  const all = async (query: string) => (await sql.raw<Record<string, unknown>>(query).execute(db.kysely)).rows;

  it('are objects of every column by name, null, numbers and bytes as SQLite gave them', async () => {
    expect(await all('select * from tools order by id')).toEqual([
      { id: 't1', name: 'Semgrep', runs: 3, score: 0.5, raw: Buffer.from('x') },
      { id: 't2', name: 'Trivy', runs: null, score: null, raw: null },
    ]);
    expect(await all('select id, name as id from tools where id = \'t1\'')).toEqual([{ id: 'Semgrep' }]);
    expect(await all('select * from tools where id = \'none\'')).toEqual([]);
  });

  it('follow the schema when another connection adds, drops or renames a column under a kept statement', async () => {
    const statement = 'select * from tools order by id';
    expect(Object.keys((await all(statement))[0]!)).toEqual(['id', 'name', 'runs', 'score', 'raw']);
    other.exec(`alter table tools add column vendor text default 'acme'`);
    expect((await all(statement))[0]).toEqual({ id: 't1', name: 'Semgrep', runs: 3, score: 0.5, raw: Buffer.from('x'), vendor: 'acme' });
    other.exec('alter table tools rename column runs to scans');
    other.exec('alter table tools drop column score');
    expect((await all(statement))[1]).toEqual({ id: 't2', name: 'Trivy', scans: null, raw: null, vendor: 'acme' });
    // A statement that names its columns keeps them, and follows a rename of what it reads.
    const named = 'select id, name as tool from tools order by id';
    expect(await all(named)).toEqual([{ id: 't1', tool: 'Semgrep' }, { id: 't2', tool: 'Trivy' }]);
    other.exec('alter table tools add column owner text');
    other.exec('alter table tools rename column name to title');
    other.exec(`update tools set title = 'Semgrep CE' where id = 't1'`);
    expect(await all('select id, title as tool from tools order by id')).toEqual([{ id: 't1', tool: 'Semgrep CE' }, { id: 't2', tool: 'Trivy' }]);
    await expect(all(named)).rejects.toThrow(/no such column: name/);
  });
});
