import type { Kysely } from 'kysely';

/**
 * `uploads.introduced`: the new and reopened findings its gate counted, per severity, with the few
 * fail_on_new named. The repository's gate judges them again under the policy of the day, so it
 * agrees with the latest upload without reading what that upload brought (which may be every finding
 * of a first upload). Null before the upload is judged, and for uploads judged before this column:
 * their `changes` give the counts, without examples.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').addColumn('introduced', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('introduced').execute();
}
