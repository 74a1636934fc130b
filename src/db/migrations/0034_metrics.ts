import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Portfolio metrics (src/metrics/).
 * - `repo_snapshots`: one row per repository and UTC day of its default branch, the state at the end
 *   of that day and that day's events. Written by the maintenance loop, which also fills every day
 *   missing since a repository's first finding: right after this migration that is the backfill from
 *   the history findings and finding_events already keep, so charts are not empty on the first day.
 *   `org_id` is kept on the row so an organisation's days are summed by one index range.
 * - `org_snapshots`: those sums per organisation and day, summed again for the days a round wrote, so
 *   a whole organisation's year is 365 rows to read rather than 365 per repository.
 * - `kev_entries.imported_at`: when Scanyard first imported the CVE (the SLA's KEV clock), kept across
 *   the catalogue's re-imports; entries already imported count from now.
 */
const COUNTS = ['open_critical', 'open_high', 'open_medium', 'open_low', 'open_info', 'opened', 'fixed', 'dismissed', 'reopened', 'breached', 'kev_open', 'vulnerabilities'];

export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  let table = db.schema.createTable('repo_snapshots')
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull());
  for (const column of COUNTS) {
    table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
  }
  await table.addPrimaryKeyConstraint('repo_snapshots_pk', ['repository_id', 'day']).execute();
  await db.schema.createIndex('repo_snapshots_org_day').on('repo_snapshots').columns(['org_id', 'day']).execute();
  let rollup = db.schema.createTable('org_snapshots').addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade')).addColumn('day', 'text', (c) => c.notNull());
  for (const column of COUNTS) rollup = rollup.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0));
  await rollup.addPrimaryKeyConstraint('org_snapshots_pk', ['org_id', 'day']).execute();
  await db.schema.alterTable('kev_entries').addColumn('imported_at', ts).execute();
  // The service's clock (the migration runs in the service), never the database's.
  await (db as Kysely<{ kev_entries: { imported_at: string | null } }>).updateTable('kev_entries').set({ imported_at: new Date().toISOString() }).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('kev_entries').dropColumn('imported_at').execute();
  await db.schema.dropTable('org_snapshots').execute();
  await db.schema.dropTable('repo_snapshots').execute();
}
