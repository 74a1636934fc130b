import type { Kysely } from 'kysely';

/**
 * Two details a finding lacked. `commit_sha`: the commit a report names per finding (Gitleaks'
 * Commit, the commit a secret was found in), null when it names none. `occurrences`: how many
 * times the tool reported this very result in the upload that last saw it; ingest keeps one row
 * for a result a tool repeats (same rule, file, identity, lines and message) rather than rows a
 * reader cannot tell apart. Existing rows were stored one per repeat, so they start at 1.
 * Adding a column with a constant default rewrites no rows on PostgreSQL (11 and later) or SQLite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('findings').addColumn('commit_sha', 'text').execute();
  await db.schema.alterTable('findings').addColumn('occurrences', 'integer', (col) => col.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('findings').dropColumn('occurrences').execute();
  await db.schema.alterTable('findings').dropColumn('commit_sha').execute();
}
