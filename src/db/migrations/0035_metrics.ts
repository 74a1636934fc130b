import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Portfolio metrics (src/metrics/).
 * - `repo_snapshots`: one row per repository and UTC day of its default branch, the state at the end
 *   of that day and that day's events. Written by the maintenance loop, which also fills every day
 *   missing since a repository's first finding: right after this migration that is the backfill from
 *   the history findings and finding_events already keep, so charts are not empty on the first day.
 *   `org_id` is kept on the row so an organisation's series reads one index range per day range.
 * - `kev_entries.imported_at`: when Scanyard first imported the CVE (the SLA's KEV clock), kept across
 *   the catalogue's re-imports; entries already imported count from now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  let table = db.schema.createTable('repo_snapshots')
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull());
  for (const column of ['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'opened', 'fixed', 'dismissed', 'reopened', 'breached', 'kev_open', 'vulnerabilities']) {
    table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
  }
  await table.addPrimaryKeyConstraint('repo_snapshots_pk', ['repository_id', 'day']).execute();
  await db.schema.createIndex('repo_snapshots_org_day').on('repo_snapshots').columns(['org_id', 'day']).execute();
  await db.schema.alterTable('kev_entries').addColumn('imported_at', ts).execute();
  // The service's clock (the migration runs in the service), never the database's.
  await (db as Kysely<{ kev_entries: { imported_at: string | null } }>).updateTable('kev_entries').set({ imported_at: new Date().toISOString() }).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('kev_entries').dropColumn('imported_at').execute();
  await db.schema.dropTable('repo_snapshots').execute();
}
