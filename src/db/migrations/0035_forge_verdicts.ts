import { sql, type Kysely } from 'kysely';

/**
 * Verdicts posted back to the forge (check runs, commit statuses, one pull request comment).
 * - `uploads.head_sha` / `base_sha`: the pull request's head commit and merge base as CI gave them.
 * - `org_pr_feedback` / `repo_pr_feedback`: what is posted (JSON); a repository without its own inherits.
 * - `forge_deliveries`: the durable outbox, one row per thing sent (check run, comment, status,
 *   note, report), written in the transaction that judges the upload, with its attempts and the id
 *   the forge gave what it created (so a retry edits it instead of creating a second one).
 * - `forge_threads`: per pull request (and category), the comment posted there and what it said,
 *   so an unchanged verdict posts nothing and an earlier upload finishing late changes nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').addColumn('head_sha', 'text').execute();
  await db.schema.alterTable('uploads').addColumn('base_sha', 'text').execute();
  await db.schema.createTable('org_pr_feedback')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id').onDelete('cascade'))
    .addColumn('feedback', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createTable('repo_pr_feedback')
    .addColumn('repository_id', 'text', (c) => c.primaryKey().references('repos.id').onDelete('cascade'))
    .addColumn('feedback', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createTable('forge_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('upload_id', 'text', (c) => c.references('uploads.id').onDelete('set null'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('thread', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempt_log', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('external_id', 'text')
    .addColumn('external_state', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_response_body', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  // The delivery log, newest first, and the claim's "nothing earlier of this thread still waiting".
  await db.schema.createIndex('forge_deliveries_repository').on('forge_deliveries').columns(['repository_id', 'id']).execute();
  await db.schema.createIndex('forge_deliveries_due').on('forge_deliveries').columns(['status', 'next_attempt_at'])
    .where(sql.ref('status'), 'in', ['pending', 'delivering']).execute();
  await db.schema.createIndex('forge_deliveries_thread').on('forge_deliveries').columns(['repository_id', 'thread', 'id']).execute();

  await db.schema.createTable('forge_threads')
    .addColumn('repository_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
    .addColumn('thread', 'text', (c) => c.notNull())
    .addColumn('comment_id', 'text')
    .addColumn('digest', 'text')
    .addColumn('upload_created_at', 'text', (c) => c.notNull())
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('forge_threads_pk', ['repository_id', 'thread'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('forge_threads').execute();
  await db.schema.dropTable('forge_deliveries').execute();
  await db.schema.dropTable('repo_pr_feedback').execute();
  await db.schema.dropTable('org_pr_feedback').execute();
  await db.schema.alterTable('uploads').dropColumn('base_sha').execute();
  await db.schema.alterTable('uploads').dropColumn('head_sha').execute();
}
