import type { Kysely } from 'kysely';

/**
 * An OSV record's `references` ({type, url}: the advisory, the fix, the report), as a JSON array,
 * http(s) URLs only; records imported before have none until their next import with a newer `modified`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('advisories').addColumn('references', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('advisories').dropColumn('references').execute();
}
