import { sql, type Kysely } from 'kysely';

/**
 * `fixed_upload_id` and `reopened_upload_id` are null for every finding an upload opens, and an
 * index over them kept an entry for each of those nulls: two index writes per new finding that no
 * query reads (`fixed_in`/`reopened_in` ask for one upload's id). Partial indexes over the non-null
 * values serve the same lookups (an equality implies not null, which both databases' planners
 * know) and cost nothing when a finding is opened.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_fixed_upload').execute();
  await db.schema.dropIndex('findings_reopened_upload').execute();
  await db.schema.createIndex('findings_fixed_upload').on('findings').column('fixed_upload_id')
    .where(sql.ref('fixed_upload_id'), 'is not', null).execute();
  await db.schema.createIndex('findings_reopened_upload').on('findings').column('reopened_upload_id')
    .where(sql.ref('reopened_upload_id'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('findings_fixed_upload').execute();
  await db.schema.dropIndex('findings_reopened_upload').execute();
  await db.schema.createIndex('findings_fixed_upload').on('findings').column('fixed_upload_id').execute();
  await db.schema.createIndex('findings_reopened_upload').on('findings').column('reopened_upload_id').execute();
}
