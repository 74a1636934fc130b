import type { Kysely } from 'kysely';

/** SARIF's result kind ("fail", "open", "review"): a finding to fix, or one to look at. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('findings').addColumn('kind', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('findings').dropColumn('kind').execute();
}
