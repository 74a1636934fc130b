import type { Kysely } from 'kysely';

/**
 * The findings page sorts most severe first: an index in that order lets both databases read a page
 * straight off it instead of sorting the repository's whole severity group (O(n) at a million rows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_repo_page').execute();
  await db.schema.createIndex('findings_repo_page').on('findings')
    .columns(['repository_id', 'state', 'severity_rank desc', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_repo_page').execute();
  await db.schema.createIndex('findings_repo_page').on('findings')
    .columns(['repository_id', 'state', 'severity_rank', 'id']).execute();
}
