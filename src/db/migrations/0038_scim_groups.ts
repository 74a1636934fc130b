import type { Kysely } from 'kysely';

/**
 * SCIM Groups, and which accounts SCIM users may be linked to.
 * - `scim_tokens.provider_id`: the sign-in provider (OpenID Connect) whose accounts this org's SCIM
 *   users are linked to; null: the only OpenID Connect provider configured, if there is exactly one.
 * - `scim_groups`: a SCIM Group is a team (`teams.source` "scim"); this row keeps what SCIM says of it
 *   beyond the team's name (its externalId). Deleting the team deletes it.
 * - `scim_group_members`: the group's members as the IdP sent them (SCIM user ids), linked or not;
 *   the team's members are those of them whose account is a member of the org.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scim_tokens').addColumn('provider_id', 'text').execute();

  await db.schema.createTable('scim_groups')
    .addColumn('team_id', 'text', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('external_id', 'text')
    .execute();

  await db.schema.createTable('scim_group_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references('scim_groups.team_id').onDelete('cascade'))
    .addColumn('scim_user_id', 'text', (c) => c.notNull().references('scim_users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('scim_group_members_pk', ['team_id', 'scim_user_id'])
    .execute();
  // "Which groups is this user in?" when a user is linked, activated or deactivated.
  await db.schema.createIndex('scim_group_members_user').on('scim_group_members').columns(['scim_user_id', 'team_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scim_group_members').execute();
  await db.schema.dropTable('scim_groups').execute();
  await db.schema.alterTable('scim_tokens').dropColumn('provider_id').execute();
}
