import type { Kysely } from 'kysely';

/**
 * With SERVICE_BLOB_URL set, an upload's raw bytes are kept in object storage and its
 * upload_contents row says where (`s3://bucket/key`), with `content` left empty: the row stays the
 * record that the bytes exist (retention reads it to delete the object), the database stays the
 * source of truth for results, and the bytes no longer grow it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').addColumn('blob_url', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('upload_contents').dropColumn('blob_url').execute();
}
