import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// The whole first schema. Cascading deletes carry an org's repos, teams and scan data with it.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts, blob } = columnTypes(db);
  const cascade = (table: string) => `${table}.id` as const;

  await db.schema.createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('login', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('provider_id', 'text')
    .addColumn('forge_user_id', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('last_login_at', ts)
    .addUniqueConstraint('users_forge_identity', ['provider_id', 'forge_user_id'])
    .execute();
  await db.schema.createIndex('users_login').on('users').column('login').execute();

  await db.schema.createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references(cascade('users')).onDelete('cascade'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

  await db.schema.createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references(cascade('users')).onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('org_ids', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('expires_at', ts)
    .addColumn('last_used_at', ts)
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').columns(['user_id', 'created_at', 'id']).execute();

  await db.schema.createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('orgs_created').on('orgs').columns(['created_at', 'id']).execute();

  await db.schema.createTable('memberships')
    .addColumn('org_id', 'text', (c) => c.notNull().references(cascade('orgs')).onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references(cascade('users')).onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user').on('memberships').columns(['user_id', 'org_id']).execute();

  await db.schema.createTable('repos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references(cascade('orgs')).onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('default_branch', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('repos_org_name', ['org_id', 'name_key'])
    .execute();
  await db.schema.createIndex('repos_org_created').on('repos').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema.createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references(cascade('orgs')).onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addUniqueConstraint('teams_org_name', ['org_id', 'name_key'])
    .execute();
  await db.schema.createIndex('teams_org_created').on('teams').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema.createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references(cascade('teams')).onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references(cascade('users')).onDelete('cascade'))
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();

  await db.schema.createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references(cascade('repos')).onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('commit_sha', 'text')
    .addColumn('ref', 'text')
    .addColumn('tools', 'text')
    .addColumn('error', 'text')
    .addColumn('created_by', 'text', (c) => c.references(cascade('users')).onDelete('set null'))
    .addColumn('api_key_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', ts)
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('started_at', ts)
    .addColumn('completed_at', ts)
    .addColumn('new_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fixed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reopened_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unchanged_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('findings_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('components_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('uploads_repo_created').on('uploads').columns(['repository_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('uploads_queue').on('uploads').columns(['status', 'created_at']).execute();

  await db.schema.createTable('upload_contents')
    .addColumn('upload_id', 'text', (c) => c.primaryKey().references(cascade('uploads')).onDelete('cascade'))
    .addColumn('content', blob, (c) => c.notNull())
    .execute();

  await db.schema.createTable('analyses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references(cascade('repos')).onDelete('cascade'))
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('tool_version', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('last_upload_id', 'text', (c) => c.notNull())
    .addColumn('completed_at', ts, (c) => c.notNull())
    .addColumn('open_critical', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_high', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_medium', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_low', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_info', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('components', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fixed_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('analyses_identity', ['repository_id', 'tool', 'category', 'format'])
    .execute();

  await db.schema.createTable('findings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references(cascade('repos')).onDelete('cascade'))
    .addColumn('analysis_id', 'text', (c) => c.notNull().references(cascade('analyses')).onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('rule_name', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('severity_rank', 'integer', (c) => c.notNull())
    .addColumn('level', 'text')
    .addColumn('file_path', 'text')
    .addColumn('start_line', 'integer')
    .addColumn('end_line', 'integer')
    .addColumn('package_name', 'text')
    .addColumn('package_version', 'text')
    .addColumn('purl', 'text')
    .addColumn('help_uri', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('first_upload_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .addColumn('fixed_at', ts)
    .addColumn('reopened_at', ts)
    .addUniqueConstraint('findings_identity', ['analysis_id', 'fingerprint'])
    .execute();
  // The findings page: a repository's findings by state, most severe first, stable by id.
  await db.schema.createIndex('findings_repo_page').on('findings')
    .columns(['repository_id', 'state', 'severity_rank', 'id']).execute();

  await db.schema.createTable('components')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references(cascade('repos')).onDelete('cascade'))
    .addColumn('analysis_id', 'text', (c) => c.notNull().references(cascade('analyses')).onDelete('cascade'))
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('ref', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('purl', 'text')
    .addColumn('type', 'text')
    .addColumn('licenses', 'text', (c) => c.notNull())
    .addColumn('hashes', 'text', (c) => c.notNull())
    .addColumn('depends_on', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('components_repo').on('components').columns(['repository_id', 'name', 'id']).execute();
  await db.schema.createIndex('components_analysis').on('components').column('analysis_id').execute();

  await db.schema.createTable('repo_status')
    .addColumn('repository_id', 'text', (c) => c.primaryKey().references(cascade('repos')).onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('last_upload_at', ts)
    .addColumn('last_completed_at', ts)
    .addColumn('open_critical', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_high', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_medium', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_low', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('open_info', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('components', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema.createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text')
    .addColumn('actor_id', 'text')
    .addColumn('actor_login', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('details', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_org').on('audit_events').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_created').on('audit_events').columns(['created_at', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('The first migration cannot be reverted; restore a backup instead.');
}
