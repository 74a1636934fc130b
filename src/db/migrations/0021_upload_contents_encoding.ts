import type { Kysely } from 'kysely';

/**
 * An upload's bytes may be kept as gzip (`encoding` 'gzip': as they arrived, or on PostgreSQL
 * compressed when stored); null: the document itself, as every upload was before. A SARIF log is
 * about a twelfth of its size compressed: storing the inflated 33 MiB cost PostgreSQL half a second
 * per upload, and the database thirty days of raw retention at full size.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').addColumn('encoding', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').dropColumn('encoding').execute();
}
