import type { Kysely } from 'kysely';

/**
 * `team_members.source`: "local" (added here) or "idp" (granted by a group mapping of an OpenID
 * Connect provider). A mapping's grants are re-applied at every sign-in, added and removed, and only
 * rows it made may be removed: a team membership given by hand stays when the IdP group goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('team_members').addColumn('source', 'text', (c) => c.notNull().defaultTo('local')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('team_members').dropColumn('source').execute();
}
