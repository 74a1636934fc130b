import type { Kysely } from 'kysely';

/**
 * Keyless uploads from CI (src/ci-identity/):
 * - `ci_trust_rules`: which CI issuer's pipelines (repository glob, ref glob, event, environment) may
 *   upload to which repository of the org (or, with no target, to the repository whose forge_id is
 *   the token's repository id).
 * - `ci_trust_bindings`: per rule and CI repository name, the immutable repository id claim seen at
 *   first use, so a deleted and re-created repository of the same name is not trusted.
 * - `ci_token_uses`: every job token exchanged (by issuer and jti, or by its hash), kept until it
 *   expires, so a token is exchanged once across all instances.
 * - `ci_tokens`: the short-lived Scanyard tokens minted (by hash), with the repositories, ref and
 *   commit they are fixed to; uploads made with one name it in `ci_token_id`.
 * - `orgs.ci_default_rule`: whether a forge-linked org's repositories accept their own pipelines.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('ci_trust_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('ref', 'text')
    .addColumn('event', 'text')
    .addColumn('environment', 'text')
    .addColumn('target_repo_id', 'text', (c) => c.references('repos.id').onDelete('cascade'))
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_trust_rules_issuer').on('ci_trust_rules').columns(['issuer', 'org_id']).execute();
  await db.schema.createIndex('ci_trust_rules_org').on('ci_trust_rules').columns(['org_id', 'created_at']).execute();

  await db.schema.createTable('ci_trust_bindings')
    .addColumn('rule_id', 'text', (c) => c.notNull().references('ci_trust_rules.id').onDelete('cascade'))
    .addColumn('repository_name', 'text', (c) => c.notNull())
    .addColumn('repository_id_claim', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ci_trust_bindings_pk', ['rule_id', 'repository_name'])
    .execute();

  await db.schema.createTable('ci_token_uses')
    .addColumn('use_key', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_token_uses_expiry').on('ci_token_uses').column('expires_at').execute();

  await db.schema.createTable('ci_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('org_ids', 'text', (c) => c.notNull())
    .addColumn('repository_ids', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('base_ref', 'text')
    .addColumn('commit_sha', 'text')
    .addColumn('claims', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_tokens_expiry').on('ci_tokens').column('expires_at').execute();

  await db.schema.alterTable('uploads').addColumn('ci_token_id', 'text').execute();
  await db.schema.alterTable('orgs').addColumn('ci_default_rule', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orgs').dropColumn('ci_default_rule').execute();
  await db.schema.alterTable('uploads').dropColumn('ci_token_id').execute();
  await db.schema.dropTable('ci_tokens').execute();
  await db.schema.dropTable('ci_token_uses').execute();
  await db.schema.dropTable('ci_trust_bindings').execute();
  await db.schema.dropTable('ci_trust_rules').execute();
}
