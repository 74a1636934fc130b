import type { Kysely } from 'kysely';

/**
 * An upload's bytes may be kept as the gzip they arrived in (`encoding` 'gzip'; null: the document
 * itself). The CLI always sends gzip, and a SARIF log is about a fourteenth of its size compressed:
 * storing the inflated 33 MiB instead cost PostgreSQL a quarter of a second per upload, and the
 * database thirty days of raw retention at full size.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').addColumn('encoding', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').dropColumn('encoding').execute();
}
