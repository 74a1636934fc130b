import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Db } from '../../src/db/index.js';
import type { DatabaseConfig } from '../../src/db/index.js';

export type DbKind = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL as well when TEST_DATABASE_URL names a server to test against. */
export const DB_KINDS: DbKind[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  kind: DbKind;
  url: string;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

export async function createTestDatabase(kind: DbKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-test-'));
    const file = path.join(dir, 'test.db');
    return {
      kind, url: `sqlite:${file}`, config: { kind, file },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = process.env.TEST_DATABASE_URL!;
  const name = `scanyard_t_${randomBytes(6).toString('hex')}`;
  await withClient(admin, (c) => c.query(`create database ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    kind, url: url.toString(), config: { kind, url: url.toString() },
    drop: () => withClient(admin, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for the enclosing describe block, dropped after it, with no migration applied:
 * for the tests of a migration, which apply those before it themselves. Call at the top of the
 * block: the getter answers inside its hooks and tests.
 */
export function useEmptyDatabase(kind: DbKind): () => Db {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    db = openDatabase(database.config);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });
  return () => db!;
}

/** The same, migrated. */
export function useMigratedDatabase(kind: DbKind): () => Db {
  const db = useEmptyDatabase(kind);
  beforeAll(() => db().migrate());
  return db;
}
