import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Organisations that follow a forge account.
 * - `forge_links`: which forge owner (GitHub organisation, GitLab group, ...) an org follows, how
 *   its last sync pass went, and when the next is due. `sync_parts` names what a webhook asked to
 *   re-read ("repos,members,teams"); a worker claims a due link with `lease_until`.
 * - `forge_events`: webhook deliveries received and not yet applied, kept durably so the hook can
 *   answer at once; (provider_id, delivery_id) is unique so a redelivery is acknowledged, not applied.
 * - `sessions.forge_token`: the sign-in access token, sealed with a key derived from the session
 *   secret; used only to check that the person linking an org administers it on the forge.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { ts } = columnTypes(db);
  await db.schema.createTable('forge_links')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id').onDelete('cascade'))
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('owner_key', 'text', (c) => c.notNull())
    .addColumn('linked_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', ts, (c) => c.notNull())
    .addColumn('last_synced_at', ts)
    .addColumn('last_error', 'text')
    .addColumn('sync_due_at', ts)
    .addColumn('sync_parts', 'text')
    .addColumn('lease_until', ts)
    .execute();
  await db.schema.createIndex('forge_links_owner').unique().on('forge_links').columns(['provider_id', 'owner_key']).execute();

  await db.schema.createTable('forge_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', ts)
    .addColumn('received_at', ts, (c) => c.notNull())
    .addColumn('applied_at', ts)
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('forge_events_delivery').unique().on('forge_events').columns(['provider_id', 'delivery_id']).execute();
  await db.schema.createIndex('forge_events_status').on('forge_events').columns(['status', 'received_at']).execute();

  await db.schema.alterTable('sessions').addColumn('forge_token', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('forge_token').execute();
  await db.schema.dropTable('forge_events').execute();
  await db.schema.dropTable('forge_links').execute();
}
