import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Webhooks and their outbox. A delivery row is written in the transaction of the event it reports,
 * so a crash between the event and its sending loses nothing; workers claim rows with a lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('min_severity', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('repository_ids', 'text')
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('updated_at', ts, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').columns(['org_id', 'created_at']).execute();

  await db.schema.createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', ts)
    .addColumn('lease_until', ts)
    .addColumn('last_attempt_at', ts)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_response_body', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('completed_at', ts)
    .execute();
  // A hook's queue in event order (listing, and "is an earlier one still waiting?").
  await db.schema.createIndex('webhook_deliveries_hook').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
}
