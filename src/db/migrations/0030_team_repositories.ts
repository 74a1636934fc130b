import { sql, type Kysely } from 'kysely';

/**
 * Who reads which repository, and where organisations, teams and repositories come from.
 * - `orgs.base_role`: "read" (every member reads every repository, as before) or "none" (a member
 *   reads what their teams hold; owners read everything).
 * - `team_repositories`: a team's grant on a repository, "read", "triage" or "admin".
 * - `memberships.source` and `teams.source`: "local" (made here), "forge", "idp" or "scim"; a forge
 *   team keeps the forge's id to follow renames.
 * - `repos`: the forge's immutable id, full name, visibility, and whether it is archived there or gone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orgs').addColumn('base_role', 'text', (c) => c.notNull().defaultTo('read')).execute();
  await db.schema.alterTable('memberships').addColumn('source', 'text', (c) => c.notNull().defaultTo('local')).execute();
  await db.schema.alterTable('teams').addColumn('source', 'text', (c) => c.notNull().defaultTo('local')).execute();
  await db.schema.alterTable('teams').addColumn('forge_id', 'text').execute();
  await db.schema.createIndex('teams_forge').unique().on('teams').columns(['org_id', 'forge_id']).where(sql.ref('forge_id'), 'is not', null).execute();

  await db.schema.createTable('team_repositories')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('team_repositories_pk', ['team_id', 'repository_id'])
    .execute();
  // "Which teams hold this repository?" (the policy, a repository's page) from the other side.
  await db.schema.createIndex('team_repositories_repository').on('team_repositories').columns(['repository_id', 'team_id']).execute();

  await db.schema.alterTable('repos').addColumn('forge_id', 'text').execute();
  await db.schema.alterTable('repos').addColumn('full_name', 'text').execute();
  await db.schema.alterTable('repos').addColumn('visibility', 'text').execute();
  await db.schema.alterTable('repos').addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('repos').addColumn('gone', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('repos_forge').unique().on('repos').columns(['org_id', 'forge_id']).where(sql.ref('forge_id'), 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('repos_forge').execute();
  for (const column of ['gone', 'archived', 'visibility', 'full_name', 'forge_id']) await db.schema.alterTable('repos').dropColumn(column).execute();
  await db.schema.dropTable('team_repositories').execute();
  await db.schema.dropIndex('teams_forge').execute();
  await db.schema.alterTable('teams').dropColumn('forge_id').execute();
  await db.schema.alterTable('teams').dropColumn('source').execute();
  await db.schema.alterTable('memberships').dropColumn('source').execute();
  await db.schema.alterTable('orgs').dropColumn('base_role').execute();
}
