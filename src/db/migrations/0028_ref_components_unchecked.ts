import type { Kysely } from 'kysely';

/**
 * `refs.components_unchecked`: how many of the ref's components its last advisory match could not
 * check. An SBOM uploaded again with the same components meets the advisories as that match did
 * (a changed advisory queues a re-match of its own), so its ingest keeps the match instead of
 * working it out again, and reports this figure as the match would have. Null until the ref's next
 * match, and again after one of its analyses is deleted: its next SBOM is then matched in full.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refs').addColumn('components_unchecked', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refs').dropColumn('components_unchecked').execute();
}
