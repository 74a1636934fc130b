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

/**
 * Updates many rows by id, each with its own values, in one statement on PostgreSQL (`update ... from
 * unnest(...)`) and one prepared statement run per row on SQLite. Re-imports where code moved change
 * the lines of nearly every finding: one UPDATE per row cost PostgreSQL a round trip each.
 */
export async function bulkUpdate<T extends keyof Database>(
  target: BulkTarget,
  table: T,
  columns: Record<string, PgColumnType>,
  rows: ({ id: string } & Record<string, unknown>)[],
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  if (target.sqlite) {
    const statement = target.sqlite.prepare(`update "${table}" set ${names.map((n) => `"${n}" = ?`).join(', ')} where id = ?`);
    for (const row of rows) statement.run(...names.map((n) => row[n] ?? null), row.id);
    return;
  }
  const arrays = [sql`${rows.map((row) => row.id)}::text[]`, ...names.map((name) => sql`${rows.map((row) => row[name] ?? null)}::${sql.raw(columns[name]!)}[]`)];
  await sql`update ${sql.table(table)} as t set ${sql.join(names.map((n) => sql`${sql.ref(n)} = v.${sql.ref(n)}`))}
    from unnest(${sql.join(arrays)}) as v(id, ${sql.join(names.map((n) => sql.ref(n)))}) where t.id = v.id`.execute(target.trx);
}
