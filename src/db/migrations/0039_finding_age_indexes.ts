import { sql, type Kysely } from 'kysely';

/**
 * Two partial indexes on findings, for metrics across thousands of repositories (metrics/store.ts),
 * each read once per default branch in scope without touching a finding row:
 * - `findings_open_age` (ref, severity, first seen, id) over open findings: past due now is
 *   `severity_rank = r and created_at < t` per severity (also the findings list's ?sla= filter).
 *   Counting an organisation of 10,000 repositories through the page index (ref_id, state,
 *   severity_rank, id) read 70,000 rows for their first-seen time (160 ms on PostgreSQL); this, 70 ms.
 * - `findings_fixed_at` (ref, fixed, severity, first seen) over fixed findings: MTTR over those fixed
 *   in the window reads the window's entries only, where the page index walked every finding a
 *   default branch ever fixed and read each row for its fixed time (60-90 ms for one fixed finding
 *   per repository at 10,000; 30 ms here, and it stays so as the history grows).
 * Partial, so each holds findings in its state only: an open finding costs no entry in the second.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('findings_open_age').on('findings').columns(['ref_id', 'severity_rank', 'created_at', 'id'])
    .where(sql.ref('state'), '=', 'open').execute();
  await db.schema.createIndex('findings_fixed_at').on('findings').columns(['ref_id', 'fixed_at', 'severity_rank', 'created_at'])
    .where(sql.ref('state'), '=', 'fixed').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_fixed_at').execute();
  await db.schema.dropIndex('findings_open_age').execute();
}
