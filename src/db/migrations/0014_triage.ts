import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Triage. A dismissal belongs to a fingerprint within a repository, not to a finding row, so it holds
 * on every ref and survives the finding disappearing and coming back; ingest reads a repository's
 * dismissals in one query and writes the finding rows' state, so reads and aggregates never join
 * this table. `finding_events` keeps the triage history of a fingerprint (ingest's own transitions are
 * read from the finding row). `analyses.dismissed` counts the analysis's dismissed findings beside its
 * open counts, so the status reads it with the analyses it already reads. A finding's page also
 * shows its rule's help (one row per rule of an analysis in `finding_rules`, not per finding), its
 * locations when the tool gave several and its snippet (null for most findings, so ingest pays little).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('suppressions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('tool', 'text')
    .addColumn('rule_id', 'text')
    .addColumn('path', 'text')
    .addColumn('purl', 'text')
    .addColumn('advisory', 'text')
    .addColumn('repository_ids', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('expires_at', ts)
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('suppressions_org').on('suppressions').columns(['org_id', 'created_at']).execute();

  await db.schema.createTable('dismissals')
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('dismissed_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('dismissed_at', ts, (c) => c.notNull())
    .addColumn('dismissed_until', ts)
    // Set when a suppression rule made it, so deleting the rule reopens exactly what it dismissed.
    .addColumn('suppression_id', 'text', (c) => c.references('suppressions.id').onDelete('set null'))
    .addPrimaryKeyConstraint('dismissals_pkey', ['repository_id', 'fingerprint'])
    .execute();
  await db.schema.createIndex('dismissals_until').on('dismissals').column('dismissed_until').execute();
  await db.schema.createIndex('dismissals_suppression').on('dismissals').column('suppression_id').execute();

  await db.schema.createTable('finding_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('comment', 'text')
    .addColumn('actor_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('finding_events_fingerprint').on('finding_events').columns(['repository_id', 'fingerprint', 'created_at']).execute();

  await db.schema.alterTable('analyses').addColumn('dismissed', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema.createTable('finding_rules')
    .addColumn('analysis_id', 'text', (c) => c.notNull().references('analyses.id').onDelete('cascade'))
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('help', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('finding_rules_pkey', ['analysis_id', 'rule_id'])
    .execute();
  await db.schema.alterTable('findings').addColumn('locations', 'text').execute();
  await db.schema.alterTable('findings').addColumn('snippet', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('findings').dropColumn('snippet').execute();
  await db.schema.alterTable('findings').dropColumn('locations').execute();
  await db.schema.dropTable('finding_rules').execute();
  await db.schema.alterTable('analyses').dropColumn('dismissed').execute();
  await db.schema.dropTable('finding_events').execute();
  await db.schema.dropTable('dismissals').execute();
  await db.schema.dropTable('suppressions').execute();
}
