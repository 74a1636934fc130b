import type { Kysely } from 'kysely';

/**
 * `components.direct`: whether the SBOM's root depends on the component itself (1), only through
 * other packages (0), or the SBOM gives no graph to tell (null: unknown). Worked out from the graph
 * at ingest, so that lists and paths need not walk it; rows stored before read as unknown until
 * their SBOM is uploaded again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('components').addColumn('direct', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('components').dropColumn('direct').execute();
}
