import { sql, type Insertable, type Transaction } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Database } from './schema.js';

/** PostgreSQL array types of the columns bulk-inserted with unnest. */
export type PgColumnType = 'text' | 'integer' | 'timestamptz';

/** Where a bulk insert runs: the open transaction, and on SQLite the connection under it. */
export interface BulkTarget {
  trx: Transaction<Database>;
  sqlite: SQLite.Database | null;
}

/**
 * Inserts many rows fast on either dialect, inside the caller's transaction. PostgreSQL gets one
 * array parameter per column and `unnest`: a handful of parameters for any number of rows, one
 * round trip. SQLite runs in-process, so one prepared single-row statement run per row beats
 * building and preparing huge multi-row statements; it runs on the very connection that holds the
 * Kysely transaction (SQLite has one), so it is part of that transaction.
 */
export async function bulkInsert<T extends keyof Database>(
  target: BulkTarget,
  table: T,
  columns: Record<string, PgColumnType>,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  if (target.sqlite) {
    const statement = target.sqlite.prepare(
      `insert into "${table}" (${names.map((n) => `"${n}"`).join(', ')}) values (${names.map(() => '?').join(', ')})`,
    );
    for (const row of rows) statement.run(names.map((n) => (row as Record<string, unknown>)[n] ?? null));
    return;
  }
  const arrays = names.map((name) => sql`${rows.map((row) => (row as Record<string, unknown>)[name] ?? null)}::${sql.raw(columns[name]!)}[]`);
  await sql`insert into ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))}) select * from unnest(${sql.join(arrays)})`
    .execute(target.trx);
}
