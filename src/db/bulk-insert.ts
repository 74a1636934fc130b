import { CompiledQuery, sql, type Insertable, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './index.js';
import { CopyRows } from './copy.js';
import { EachRow } from './sqlite-driver.js';

/** PostgreSQL types of the bulk-written columns (bulkUpdate declares its temporary table with them). */
export type PgColumnType = 'text' | 'integer' | 'timestamptz';

/** Where a bulk write runs: the open transaction, on its database. */
export interface BulkTarget {
  trx: Transaction<Database>;
  dialect: Dialect;
}

/**
 * Inserts many rows fast on either dialect, inside the caller's transaction, on its connection:
 * PostgreSQL gets them through COPY (db/copy.ts), SQLite as one prepared single-row statement run
 * per row (EachRow, db/sqlite-driver.ts). Each row is built from its item (`rowOf`) as it is
 * written, not all before: on PostgreSQL that work overlaps the server's on the rows before it
 * (building 25,000 findings took 40-80 ms, while the server waited), and no row outlives its write,
 * so 100,000 of them never pile up for the garbage collector to move.
 */
export async function bulkInsert<T extends keyof Database, Item>(
  target: BulkTarget,
  table: T,
  columns: Record<string, PgColumnType>,
  items: readonly Item[],
  rowOf: (item: Item) => Insertable<Database[T]>,
): Promise<void> {
  if (items.length === 0) return;
  const names = Object.keys(columns);
  const valuesOf = (item: Item) => {
    const row = rowOf(item) as Record<string, unknown>;
    return names.map((n) => row[n] ?? null);
  };
  if (target.dialect === 'sqlite') {
    await target.trx.executeQuery(CompiledQuery.raw(
      `insert into "${table}" (${names.map((n) => `"${n}"`).join(', ')}) values (${names.map(() => '?').join(', ')})`,
      [new EachRow(items, valuesOf)],
    ));
    return;
  }
  await target.trx.executeQuery(CompiledQuery.raw(
    `copy "${table}" (${names.map((n) => `"${n}"`).join(', ')}) from stdin`,
    [new CopyRows(items, valuesOf)],
  ));
}

/**
 * Updates many rows by id, each with its own values, all of them `within` one owner (a row of
 * another owner is left alone): on PostgreSQL the values are copied into a temporary table
 * (dropped in the same transaction) and applied in one `update ... from`; on SQLite one prepared
 * statement runs per row. Re-imports where code moved change the lines of nearly every
 * finding: one UPDATE per row cost PostgreSQL a round trip each, and `unnest` arrays cost it as
 * much in parsing array literals as in updating.
 */
export async function bulkUpdate<T extends keyof Database>(
  target: BulkTarget,
  table: T,
  columns: Record<string, PgColumnType>,
  rows: ({ id: string } & Record<string, unknown>)[],
  within: { column: string; value: string },
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(columns);
  if (target.dialect === 'sqlite') {
    await target.trx.executeQuery(CompiledQuery.raw(
      `update "${table}" set ${names.map((n) => `"${n}" = ?`).join(', ')} where id = ? and "${within.column}" = ?`,
      [new EachRow(rows, (row) => [...names.map((n) => row[n] ?? null), row.id, within.value])],
    ));
    return;
  }
  const { trx } = target;
  const changes = sql.table(`${table}_changes`);
  await sql`create temporary table ${changes} (id text, ${sql.join(names.map((n) => sql`${sql.ref(n)} ${sql.raw(columns[n]!)}`))}) on commit drop`
    .execute(trx);
  await trx.executeQuery(CompiledQuery.raw(
    `copy "${table}_changes" (id, ${names.map((n) => `"${n}"`).join(', ')}) from stdin`,
    [new CopyRows(rows, (row) => [row.id, ...names.map((n) => row[n] ?? null)])],
  ));
  // `within` names the rows' common owner (an indexed column): the planner, which knows nothing of
  // the new table, otherwise joined it against every row of the target table.
  await sql`update ${sql.table(table)} as t set ${sql.join(names.map((n) => sql`${sql.ref(n)} = v.${sql.ref(n)}`))}
    from ${changes} as v where t.id = v.id and t.${sql.ref(within.column)} = ${within.value}`.execute(trx);
  await sql`drop table ${changes}`.execute(trx);
}
