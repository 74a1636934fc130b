import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * What VEX documents uploaded to a repository state, the latest statement per vulnerability and
 * product: kept, so a statement about a finding that has not appeared yet is applied when it does.
 * `product` is a purl without version, qualifiers or subpath, or `ref:` and a bom-ref; `version` is
 * set when the statement names one. A dismissal made by a statement names its upload, so a later
 * `affected` statement reopens what a VEX dismissed and never what a person did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('vex_statements')
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('vulnerability', 'text', (c) => c.notNull())
    .addColumn('product', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('aliases', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('justification', 'text')
    .addColumn('detail', 'text')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('stated_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('vex_statements_pkey', ['repository_id', 'vulnerability', 'product', 'version'])
    .execute();
  await db.schema.alterTable('dismissals').addColumn('vex_upload_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dismissals').dropColumn('vex_upload_id').execute();
  await db.schema.dropTable('vex_statements').execute();
}
