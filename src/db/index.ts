import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import type { Database } from './schema.js';
import { PooledSqliteDialect } from './sqlite-driver.js';
import { copyAwarePool } from './copy.js';
import { fromPgTimestamptz } from './time.js';
import { latestMigration, migrationProvider } from './migrations/index.js';

export type Dialect = 'sqlite' | 'postgres';

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string };

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  migrate(): Promise<void>;
  /** True when the database answers and every migration is applied. */
  isReady(): Promise<boolean>;
  /**
   * SQLite: copies the pages its write-ahead log holds into the database file, waiting for nobody (a
   * passive checkpoint); for a process whose request thread leaves that to its ingest thread (see
   * `checkpoints` of openDatabase). PostgreSQL: nothing.
   */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
}

/** The dialect a Kysely instance (or a transaction of it) speaks, for code handed no `Db`. */
export function dialectOf(db: Kysely<Database>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * `connections`: the pool's size (an in-memory SQLite database has one connection: each would be a
 * database of its own). `checkpoints`: whether SQLite connections checkpoint the write-ahead log
 * when their commit grows it past 1,000 pages (SQLite's default). Where an ingest thread runs, it is
 * off on both of the process's threads, because the checkpoint runs inside the commit: storing a
 * 60 MiB upload's 4.5 MiB of gzip held every request for 70-95 ms, and an upload's results waited
 * 0.2-0.3 s for theirs. The ingest thread checkpoints on a timer instead (scans/ingest-thread.ts).
 */
export function openDatabase(config: DatabaseConfig, connections = 10, { checkpoints = true } = {}): Db {
  const kysely = config.kind === 'sqlite'
    ? openSqlite(config.file, config.file === ':memory:' ? 1 : connections, checkpoints)
    : openPostgres(config.url, connections);
  return {
    kysely,
    dialect: config.kind,
    migrate: () => migrate(kysely),
    isReady: () => isReady(kysely),
    checkpoint: async () => {
      if (config.kind === 'sqlite') await sql`pragma wal_checkpoint(passive)`.execute(kysely);
    },
    close: () => kysely.destroy(),
  };
}

function openSqlite(file: string, connections: number, checkpoints: boolean): Kysely<Database> {
  if (file !== ':memory:') createOwnerOnly(file);
  const open = () => {
    const database = new SQLite(file);
    database.pragma('busy_timeout = 5000');
    database.pragma('journal_mode = WAL');
    // From here a connection never waits inside SQLite for another's transaction (that would hold
    // the event loop): the driver waits asynchronously and tries again (sqlite-driver.ts).
    database.pragma('busy_timeout = 0');
    database.pragma('foreign_keys = ON');
    // WAL makes NORMAL durable against process crashes; only an OS crash can lose the last commits.
    database.pragma('synchronous = NORMAL');
    if (!checkpoints) database.pragma('wal_autocheckpoint = 0');
    return database;
  };
  return new Kysely<Database>({ dialect: new PooledSqliteDialect(open, connections) });
}

/**
 * The database holds session ids and key hashes: its folder and file are created readable by the
 * owner only. SQLite gives its -wal and -shm files the main file's mode. Existing files are left
 * as the operator set them.
 */
function createOwnerOnly(file: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
}

const TIMESTAMPTZ_OID = 1184;
const INT8_OID = 20;

function openPostgres(url: string, connections: number): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: connections,
    connectionTimeoutMillis: 5000,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (oid === TIMESTAMPTZ_OID) return fromPgTimestamptz;
        if (oid === INT8_OID) return Number;
        return pg.types.getTypeParser(oid, format as 'text');
      }) as typeof pg.types.getTypeParser,
    },
  });
  // A client losing its server emits 'error'; pg-pool listens only while the client is idle, and an
  // unheard 'error' crashes the process. Queries in flight still fail with the error, and /readyz
  // reports the outage.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: copyAwarePool(pool) }) });
}

async function migrate(kysely: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db: kysely, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const name = failed ? ` ${failed.migrationName}` : '';
    throw new Error(`database migration${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function isReady(kysely: Kysely<Database>): Promise<boolean> {
  try {
    const row = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`
      .execute(kysely);
    return row.rows[0]?.name === latestMigration;
  } catch {
    return false;
  }
}
