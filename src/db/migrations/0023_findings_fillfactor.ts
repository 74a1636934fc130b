import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL leaves half of each findings page free, so that a re-upload after code moved (every
 * finding gets new lines, and no indexed column changes) writes each new row version beside the old
 * one as a heap-only tuple: no entry in any of the table's indexes. With full pages every version
 * went to another page and into all of them: the bench's re-upload of 100,000 moved results took
 * 3.85 s against 2.29 s with half-empty pages, and the first upload cost the same (2.62 s against
 * 2.54-2.61 s). The table takes up to twice the space; a table whose code moves reached that size
 * anyway, with dead versions, after its first such upload. Pages written before this keep theirs.
 * SQLite has no such setting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table findings set (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table findings reset (fillfactor)`.execute(db);
}
