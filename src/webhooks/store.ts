import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { Database, WebhookDeliveryRow, WebhookRow, WebhooksTable } from '../db/schema.js';
import type { Dialect } from '../db/index.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import type { AttemptColumns, NextStep } from '../jobs/outbox.js';
import { enqueuePing } from './outbox.js';

/** A claimed delivery with what sending it needs; `attempts` is the claim's fencing token. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  hook: Pick<WebhookRow, 'id' | 'url' | 'secret' | 'format'>;
}

/** SQL of webhooks and their deliveries. */
export function webhookStore(db: Kysely<Database>, dialect: Dialect) {
  return {
    /** The hook and its ping, together: a hook never exists without its first delivery. */
    async insert(hook: Insertable<WebhooksTable>): Promise<WebhookRow> {
      return db.transaction().execute(async (trx) => {
        const row = await trx.insertInto('webhooks').values(hook).returningAll().executeTakeFirstOrThrow();
        await enqueuePing(trx, row);
        return row;
      });
    },

    /** A ping on demand (the UI's "test" button): the same delivery a new hook receives. */
    ping(hook: WebhookRow): Promise<WebhookDeliveryRow> {
      return enqueuePing(db, hook);
    },

    byId(id: string): Promise<WebhookRow | undefined> {
      return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    },

    page(orgId: string, page: Page): Promise<Paged<WebhookRow>> {
      return paginate(db.selectFrom('webhooks').where('org_id', '=', orgId), page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
    },

    async update(id: string, values: Updateable<WebhooksTable>): Promise<WebhookRow | undefined> {
      return db.updateTable('webhooks').set(values).where('id', '=', id).returningAll().executeTakeFirst();
    },

    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** How many of these ids are repositories of the org. */
    async reposInOrg(orgId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom('repos').select('id').where('org_id', '=', orgId).where('id', 'in', ids).execute();
      return new Set(rows.map((r) => r.id));
    },

    deliveries(webhookId: string, page: Page): Promise<Paged<WebhookDeliveryRow>> {
      return paginate(db.selectFrom('webhook_deliveries').where('webhook_id', '=', webhookId), page, (q) => q.selectAll().orderBy('id', 'desc'));
    },

    delivery(webhookId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
      return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
    },

    /** Queues a finished delivery again, same id, as a fresh round of attempts; undefined while it is still under way. */
    async redeliver(webhookId: string, id: string, at: string): Promise<WebhookDeliveryRow | undefined> {
      return db.updateTable('webhook_deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: at, lease_until: null, completed_at: null })
        .where('webhook_id', '=', webhookId).where('id', '=', id).where('status', 'in', ['succeeded', 'failed'])
        .returningAll().executeTakeFirst();
    },

    /**
     * Takes the oldest due delivery that heads its hook's queue: pending and due, or delivering under
     * a lease that ran out (its worker died), with no earlier delivery of the same hook still waiting,
     * so a hook receives its events in order; and of an org with fewer than `perOrg` deliveries in
     * flight, so that one org's receivers that never answer hold at most that many senders (a soft
     * cap: two instances claiming at once may each see room). On PostgreSQL, SKIP LOCKED lets workers
     * claim side by side.
     */
    async claim(at: string, leaseUntil: string, perOrg: number): Promise<ClaimedDelivery | undefined> {
      const lock = dialect === 'postgres' ? sql`for update of d skip locked` : sql``;
      const result = await sql<WebhookDeliveryRow>`
        update webhook_deliveries set status = 'delivering', attempts = attempts + 1, lease_until = ${leaseUntil}, last_attempt_at = ${at}
        where id = (
          select d.id from webhook_deliveries d
          join webhooks w on w.id = d.webhook_id and w.active = 1
          where ((d.status = 'pending' and d.next_attempt_at <= ${at}) or (d.status = 'delivering' and d.lease_until < ${at}))
            and not exists (
              select 1 from webhook_deliveries e
              where e.webhook_id = d.webhook_id and e.id < d.id and e.status in ('pending', 'delivering')
            )
            and (
              select count(*) from webhook_deliveries f join webhooks fw on fw.id = f.webhook_id
              where f.status = 'delivering' and f.lease_until >= ${at} and fw.org_id = w.org_id
            ) < ${perOrg}
          order by d.next_attempt_at, d.id limit 1 ${lock}
        )
        and status in ('pending', 'delivering')
        returning *`.execute(db);
      const delivery = result.rows[0];
      if (!delivery) return undefined;
      const hook = await db.selectFrom('webhooks').select(['id', 'url', 'secret', 'format']).where('id', '=', delivery.webhook_id).executeTakeFirst();
      if (!hook) return undefined;
      return { delivery: { ...delivery, attempts: Number(delivery.attempts) }, hook };
    },

    /** Keeps a claim alive while a slow receiver answers; false once it was lost. */
    async renewLease(delivery: WebhookDeliveryRow, leaseUntil: string): Promise<boolean> {
      const result = await db.updateTable('webhook_deliveries').set({ lease_until: leaseUntil })
        .where('id', '=', delivery.id).where('status', '=', 'delivering').where('attempts', '=', delivery.attempts)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Records an attempt: succeeded, failed for good, or pending again at `nextAttemptAt`. Only while
     * this worker still holds the claim; false when it was overtaken.
     */
    async record(delivery: WebhookDeliveryRow, outcome: AttemptColumns, next: NextStep): Promise<boolean> {
      const result = await db.updateTable('webhook_deliveries').set({
        ...outcome,
        status: next.status,
        lease_until: null,
        next_attempt_at: next.status === 'pending' ? next.nextAttemptAt : null,
        completed_at: next.status === 'pending' ? null : next.at,
      }).where('id', '=', delivery.id).where('status', '=', 'delivering').where('attempts', '=', delivery.attempts).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Drops finished deliveries (succeeded or failed) completed before `olderThan`. */
    async pruneFinished(olderThan: string): Promise<number> {
      const result = await db.deleteFrom('webhook_deliveries')
        .where('status', 'in', ['succeeded', 'failed']).where('completed_at', '<', olderThan).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
export type WebhookStore = ReturnType<typeof webhookStore>;
