import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Findings and components no longer check their repository on PostgreSQL. Each row's analysis is
 * checked already, and the analysis checks the same repository; deleting a repository still
 * removes them, through their analyses. PostgreSQL runs a foreign-key check as a query per row:
 * the repository check cost about 0.3 s of every 100,000 findings written. SQLite's check is an
 * in-process index probe that costs next to nothing, and dropping it there would mean rebuilding
 * both tables, so SQLite keeps it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table findings drop constraint if exists findings_repository_id_fkey`.execute(db);
  await sql`alter table components drop constraint if exists components_repository_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table findings add constraint findings_repository_id_fkey foreign key (repository_id) references repos (id) on delete cascade`.execute(db);
  await sql`alter table components add constraint components_repository_id_fkey foreign key (repository_id) references repos (id) on delete cascade`.execute(db);
}
