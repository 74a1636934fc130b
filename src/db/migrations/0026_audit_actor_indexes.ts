import type { Kysely } from 'kysely';

/**
 * The audit log by actor (`?actor=`, a user id or a login): for a site administrator's whole log the
 * filter read every event ever recorded, to count and page them (test/db/query-plans.test.ts found
 * it). Each index holds an actor's events in time order; the two together answer the filter's `or`
 * (SQLite plans a multi-index OR). An org's log by actor still starts from the org's events on
 * SQLite, whose planner (no statistics) prefers `audit_org`'s equality and order; PostgreSQL chooses
 * by its statistics. Events are written by administrative actions (keys, members, webhooks,
 * policies), not by uploads: two more index entries per event cost nothing an upload waits for.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('audit_actor_id').on('audit_events').columns(['actor_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_actor_login').on('audit_events').columns(['actor_login', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_actor_id').execute();
  await db.schema.dropIndex('audit_actor_login').execute();
}
