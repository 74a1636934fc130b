import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Indexes for lookups that read a growing table whole (test/db/query-plans.test.ts plans every
 * statement of a day's flows on SQLite and fails on such a read).
 *
 * - A ref's state asks for its pending or processing upload (on accept, claim and completion; on
 *   SQLite the accept runs on the event loop that answers requests): through `uploads_ref` it
 *   visited every upload of the ref, 1.8 ms per lookup on SQLite with 20,000 uploads on a branch,
 *   and growing with every CI run. A webhook delivery waits for its hook's earlier unfinished ones:
 *   through `webhook_deliveries_hook` it visited every delivery the retention still keeps. Partial
 *   indexes over the unfinished rows hold only what the queues hold (0.01 ms with the same 20,000
 *   uploads). The queries spell the statuses as literals: a planner cannot prove that a bound
 *   parameter lies within an index's condition.
 * - The advisories analyses, where the top advisories and an advisory's affected repositories start.
 * - Advisories by package, as `GET /advisories?ecosystem=&package=` filters them.
 * - On SQLite, findings by repository: SQLite keeps their foreign key to `repos` (0020), and its
 *   cascade read every finding to delete a repository, even an empty one (0.5 s per million
 *   findings, on the event loop, and again for each repository of a deleted org). Its cost to an
 *   upload was within the noise of 100,000-row inserts (one value per upload, appended).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('uploads_ref_active').on('uploads').columns(['repository_id', 'ref_kind', 'ref_name', 'status'])
    .where(sql<boolean>`status in ('pending', 'processing')`).execute();
  await db.schema.createIndex('webhook_deliveries_hook_active').on('webhook_deliveries').columns(['webhook_id', 'id'])
    .where(sql<boolean>`status in ('pending', 'delivering')`).execute();
  await db.schema.createIndex('analyses_tool').on('analyses').column('tool').execute();
  await db.schema.createIndex('advisory_packages_name').on('advisory_packages').columns(['ecosystem', 'name']).execute();
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    await db.schema.createIndex('findings_repository').on('findings').column('repository_id').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('uploads_ref_active').execute();
  await db.schema.dropIndex('webhook_deliveries_hook_active').execute();
  await db.schema.dropIndex('analyses_tool').execute();
  await db.schema.dropIndex('advisory_packages_name').execute();
  await db.schema.dropIndex('findings_repository').ifExists().execute();
}
