import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { newId } from '../ids.js';

/**
 * Results per ref. An analysis becomes (repository, ref, tool, category, format); each ref keeps its
 * own aggregates (the repository's status row mirrors its default branch's). Every existing analysis,
 * finding and upload becomes the default branch's, with its counts as they were.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (columnTypes(db).ts === 'timestamptz') return migrate(db, true);
  // SQLite runs migrations outside a transaction and must rebuild a table (see below): one
  // transaction keeps a failure from leaving half a migration behind, and dropping the old table
  // with foreign keys on would cascade into findings and components.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute((trx) => migrate(trx, false));
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

async function migrate(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  const { ts } = columnTypes(db);

  await db.schema.createTable('refs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('base_ref', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('last_upload_at', ts)
    .addColumn('last_completed_at', ts)
    .addColumn('open_critical', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_high', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_medium', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_low', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_info', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('components', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fixed_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('refs_identity', ['repository_id', 'kind', 'name'])
    .execute();
  // Retention looks for refs that have been idle the longest.
  await db.schema.createIndex('refs_last_upload').on('refs').column('last_upload_at').execute();

  const scanned = await sql<{
    id: string; default_branch: string | null; state: string; last_upload_at: string | null; last_completed_at: string | null;
    open_critical: number; open_high: number; open_medium: number; open_low: number; open_info: number; components: number; fixed_total: number;
  }>`select repos.id, repos.default_branch, coalesce(s.state, 'complete') as state, s.last_upload_at, s.last_completed_at,
        coalesce(s.open_critical, 0) as open_critical, coalesce(s.open_high, 0) as open_high, coalesce(s.open_medium, 0) as open_medium,
        coalesce(s.open_low, 0) as open_low, coalesce(s.open_info, 0) as open_info, coalesce(s.components, 0) as components,
        coalesce((select sum(a.fixed_total) from analyses a where a.repository_id = repos.id), 0) as fixed_total
      from repos left join repo_status s on s.repository_id = repos.id
      where s.repository_id is not null or exists (select 1 from analyses a where a.repository_id = repos.id)`.execute(db);
  for (const repo of scanned.rows) {
    await sql`insert into refs (id, repository_id, kind, name, state, last_upload_at, last_completed_at,
        open_critical, open_high, open_medium, open_low, open_info, components, fixed_total)
      values (${newId()}, ${repo.id}, 'branch', ${defaultBranchName(repo.default_branch)}, ${repo.state}, ${repo.last_upload_at},
        ${repo.last_completed_at}, ${repo.open_critical}, ${repo.open_high}, ${repo.open_medium}, ${repo.open_low}, ${repo.open_info},
        ${repo.components}, ${Number(repo.fixed_total)})`.execute(db);
  }
  await db.schema.alterTable('uploads').addColumn('ref_kind', 'text').execute();
  await db.schema.alterTable('uploads').addColumn('ref_name', 'text').execute();
  await db.schema.alterTable('uploads').addColumn('base_ref', 'text').execute();
  await db.schema.alterTable('uploads').addColumn('vs_base_new', 'integer').execute();
  await db.schema.alterTable('uploads').addColumn('vs_base_fixed', 'integer').execute();
  await sql`update uploads set ref_kind = 'branch', ref_name = coalesce(
      (select refs.name from refs where refs.repository_id = uploads.repository_id), 'main')`.execute(db);
  await db.schema.createIndex('uploads_ref').on('uploads')
    .columns(['repository_id', 'ref_kind', 'ref_name', 'created_at', 'id']).execute();

  await db.schema.alterTable('analyses').addColumn('ref_id', 'text', (c) => c.references('refs.id').onDelete('cascade')).execute();
  await sql`update analyses set ref_id = (select refs.id from refs where refs.repository_id = analyses.repository_id)`.execute(db);
  if (postgres) {
    await sql`alter table analyses alter column ref_id set not null`.execute(db);
    await sql`alter table analyses drop constraint analyses_identity`.execute(db);
    await sql`alter table analyses add constraint analyses_identity unique (ref_id, tool, category, format)`.execute(db);
  } else {
    await rebuildSqliteAnalyses(db);
  }
  await db.schema.createIndex('analyses_repo').on('analyses').column('repository_id').execute();

  // Findings carry their ref so a ref's findings page walks one index in its sort order, as the
  // repository's did; the index replaces the repository-wide one, so ingest maintains no more indexes.
  await db.schema.alterTable('findings').addColumn('ref_id', 'text').execute();
  // A join, not a subquery per row: this is the one step whose cost grows with the findings.
  await sql`update findings set ref_id = analyses.ref_id from analyses where analyses.id = findings.analysis_id`.execute(db);
  if (postgres) await sql`alter table findings alter column ref_id set not null`.execute(db);
  await db.schema.dropIndex('findings_repo_page').execute();
  await db.schema.createIndex('findings_ref_page').on('findings')
    .columns(['ref_id', 'state', 'severity_rank desc', 'id']).execute();
}

/**
 * The default branch as refs/ref-name.ts reads `default_branch` today (db/ imports no feature, and a
 * migration must not change with later code): a branch in either spelling, else main.
 */
function defaultBranchName(configured: string | null): string {
  if (!configured) return 'main';
  const name = configured.startsWith('refs/heads/') ? configured.slice('refs/heads/'.length) : configured;
  // eslint-disable-next-line no-control-regex -- control characters are what git refuses in a ref name
  const invalid = !name || /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\//.test(name) || name.startsWith('/') || name.endsWith('/')
    || name.endsWith('.') || name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
  return invalid || name.startsWith('refs/') || /^pr\/\d+$/.test(name) ? 'main' : name;
}

/**
 * SQLite cannot drop a table constraint, so the analyses table is rebuilt with the new identity
 * (the documented twelve-step way: foreign keys off, copy, drop, rename, check). Its own DDL is
 * reused, so any column another migration added survives, and its indexes are recreated. Runs
 * with foreign keys off (see up).
 */
async function rebuildSqliteAnalyses(db: Kysely<unknown>): Promise<void> {
  const oldIdentity = /constraint "analyses_identity" unique \([^)]*\)/;
  const table = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'analyses'`.execute(db);
  const ddl = table.rows[0]!.sql;
  if (!oldIdentity.test(ddl) || !ddl.startsWith('CREATE TABLE "analyses"')) throw new Error('unexpected analyses table definition');
  const indexes = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and tbl_name = 'analyses' and sql is not null`.execute(db);
  const rebuilt = ddl.replace('CREATE TABLE "analyses"', 'CREATE TABLE "analyses_new"')
    .replace(oldIdentity, 'constraint "analyses_identity" unique ("ref_id", "tool", "category", "format")');

  await sql.raw(rebuilt).execute(db);
  await sql`insert into analyses_new select * from analyses`.execute(db);
  await sql`drop table analyses`.execute(db);
  await sql`alter table analyses_new rename to analyses`.execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
  const broken = await sql`pragma foreign_key_check`.execute(db);
  if (broken.rows.length > 0) throw new Error(`rebuilding analyses broke ${broken.rows.length} foreign keys`);
}

export async function down(): Promise<void> {
  throw new Error('Results per ref cannot be folded back into one per repository; restore a backup instead.');
}
