import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Policies (an org's, and a repository's own when it does not inherit), the gate each upload was
 * judged to and what it changed by severity (kept, so a CI job asking later gets the answer of the
 * time), and badge tokens (hashed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('org_policies')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id').onDelete('cascade'))
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createTable('repo_policies')
    .addColumn('repository_id', 'text', (c) => c.primaryKey().references('repos.id').onDelete('cascade'))
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createTable('badge_tokens')
    .addColumn('repository_id', 'text', (c) => c.primaryKey().references('repos.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.alterTable('uploads').addColumn('gate', 'text').execute();
  await db.schema.alterTable('uploads').addColumn('changes', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('changes').execute();
  await db.schema.alterTable('uploads').dropColumn('gate').execute();
  await db.schema.dropTable('badge_tokens').execute();
  await db.schema.dropTable('repo_policies').execute();
  await db.schema.dropTable('org_policies').execute();
}
