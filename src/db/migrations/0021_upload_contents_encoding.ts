import type { Kysely } from 'kysely';

/**
 * Uploads are kept as gzip from now on (`encoding` 'gzip': as they arrived, or compressed when
 * stored); those stored before stay as they are (null: the document itself). A SARIF log is about a
 * twelfth of its size compressed: storing the inflated 33 MiB cost PostgreSQL half a second per
 * upload, and the database thirty days of raw retention at full size.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').addColumn('encoding', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').dropColumn('encoding').execute();
}
