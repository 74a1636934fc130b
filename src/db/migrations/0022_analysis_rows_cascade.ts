import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * On PostgreSQL, findings and components no longer check their analysis row by row: a foreign key
 * runs a query per inserted row, which cost 0.35-0.4 s of every 100,000 findings written (measured
 * with INSERT ... SELECT from a prepared copy of 100,000 rows: 1.90-1.97 s with the check, 1.49-1.55
 * s without). What the key did besides checking, removing them with their analysis, is kept by a
 * trigger that runs once per statement deleting analyses (an analysis removed, its ref pruned, its
 * repository or org deleted: the deletes that cascade to analyses run it too), with the deleted
 * rows as a transition table.
 *
 * Only ingest writes findings and components, for the analysis it has just read (key-share locked
 * until it commits: scans/tracking-store.ts) or created, with the repository row locked. A delete of
 * that analysis (an analysis removed, which locks the repository row too; a repository or org
 * deleted; a ref pruned) waits for the ingest and then removes what it wrote, so no rows are left of
 * a deleted analysis. SQLite's check is an in-process index probe and stays.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function analyses_remove_rows() returns trigger language plpgsql as $$
    begin
      delete from findings where analysis_id in (select id from removed_analyses);
      delete from components where analysis_id in (select id from removed_analyses);
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger analyses_remove_rows after delete on analyses
    referencing old table as removed_analyses for each statement execute function analyses_remove_rows()`.execute(db);
  await sql`alter table findings drop constraint if exists findings_analysis_id_fkey`.execute(db);
  await sql`alter table components drop constraint if exists components_analysis_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table findings add constraint findings_analysis_id_fkey foreign key (analysis_id) references analyses (id) on delete cascade`.execute(db);
  await sql`alter table components add constraint components_analysis_id_fkey foreign key (analysis_id) references analyses (id) on delete cascade`.execute(db);
  await sql`drop trigger analyses_remove_rows on analyses`.execute(db);
  await sql`drop function analyses_remove_rows()`.execute(db);
}
