import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Database } from './schema.js';
import { withStatementCache } from './sqlite-statements.js';
import { copyAwarePool } from './copy.js';
import { latestMigration, migrationProvider } from './migrations/index.js';

export type Dialect = 'sqlite' | 'postgres';

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string };

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** The SQLite handle, for bulk inserts only (see bulk-insert.ts); null on PostgreSQL. */
  sqlite: SQLite.Database | null;
  migrate(): Promise<void>;
  /** True when the database answers and every migration is applied. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

/** `connections`: the PostgreSQL pool's size (SQLite has one connection). */
export function openDatabase(config: DatabaseConfig, connections = 10): Db {
  const sqlite = config.kind === 'sqlite' ? openSqlite(config.file) : null;
  const kysely = sqlite
    ? new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) })
    : openPostgres((config as { url: string }).url, connections);
  return {
    kysely,
    dialect: config.kind,
    sqlite,
    migrate: () => migrate(kysely),
    isReady: () => isReady(kysely),
    close: () => kysely.destroy(),
  };
}

function openSqlite(file: string): SQLite.Database {
  if (file !== ':memory:') createOwnerOnly(file);
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  // The ingest thread writes through a connection of its own; a write here waits for its transaction
  // (a 64 MiB upload's takes a few seconds) instead of failing with SQLITE_BUSY.
  database.pragma('busy_timeout = 30000');
  database.pragma('foreign_keys = ON');
  // WAL makes NORMAL durable against process crashes; only an OS crash can lose the last commits.
  database.pragma('synchronous = NORMAL');
  return database;
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
        if (oid === TIMESTAMPTZ_OID) return (value: string) => new Date(value).toISOString();
        if (oid === INT8_OID) return (value: string) => Number(value);
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
