import type { Kysely } from 'kysely';

/**
 * Enterprise identity.
 * - `team_members.source`: "local" (added here) or "idp" (granted by a group mapping of an OpenID
 *   Connect provider). A mapping's grants are re-applied at every sign-in, added and removed, and only
 *   rows it made may be removed: a team membership given by hand stays when the IdP group goes.
 * - `scim_tokens`: one SCIM bearer token per organisation, stored as its SHA-256 (shown once).
 * - `scim_users`: the users an organisation's IdP provisioned by SCIM, keyed by their SCIM id; linked
 *   to the account (`user_id`) whose sign-in has sub = externalId, else login = userName, once it exists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('team_members').addColumn('source', 'text', (c) => c.notNull().defaultTo('local')).execute();

  await db.schema.createTable('scim_tokens')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('scim_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('user_name_key', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('display_name', 'text')
    .addColumn('email', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // userName is unique per org ignoring case (RFC 7643 4.1.1: caseExact false).
  await db.schema.createIndex('scim_users_name').unique().on('scim_users').columns(['org_id', 'user_name_key']).execute();
  await db.schema.createIndex('scim_users_user').on('scim_users').columns(['user_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scim_users').execute();
  await db.schema.dropTable('scim_tokens').execute();
  await db.schema.alterTable('team_members').dropColumn('source').execute();
}
