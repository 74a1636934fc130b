import { sql, type Insertable, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './index.js';

/** PostgreSQL array types of the columns bulk-inserted with unnest. */
export type PgColumnType = 'text' | 'integer' | 'timestamptz';

/**
 * Inserts many rows fast on either dialect. PostgreSQL gets one array parameter per column and
 * `unnest` (a handful of parameters for any number of rows, instead of tens of thousands); SQLite,
 * where statements are in-process and cheap, gets multi-row VALUES in chunks under its parameter cap.
 */
export async function bulkInsert<T extends keyof Database>(
  trx: Transaction<Database>,
  dialect: Dialect,
  table: T,
  columns: Record<string, PgColumnType>,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  if (dialect === 'sqlite') {
    const chunk = Math.floor(30_000 / names.length);
    for (let i = 0; i < rows.length; i += chunk) {
      await trx.insertInto(table).values(rows.slice(i, i + chunk) as never).execute();
    }
    return;
  }
  const arrays = names.map((name) => sql`${rows.map((row) => (row as Record<string, unknown>)[name] ?? null)}::${sql.raw(columns[name]!)}[]`);
  await sql`insert into ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))}) select * from unnest(${sql.join(arrays)})`.execute(trx);
}
