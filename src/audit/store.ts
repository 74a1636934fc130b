import type { Kysely } from 'kysely';
import type { AuditEventRow, Database } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';

export interface AuditEvent {
  action: string;
  actor: { id: string; login: string } | null;
  orgId?: string | null;
  target?: { type: string; id: string } | null;
  ip?: string | null;
  details?: Record<string, unknown>;
}

/** Security-relevant events: who did what, when, from where. Written beside the change itself. */
export function auditStore(db: Kysely<Database>) {
  return {
    async record(event: AuditEvent): Promise<void> {
      await db.insertInto('audit_events').values({
        id: newId(),
        org_id: event.orgId ?? null,
        actor_id: event.actor?.id ?? null,
        actor_login: event.actor?.login ?? null,
        action: event.action,
        target_type: event.target?.type ?? null,
        target_id: event.target?.id ?? null,
        ip: event.ip ?? null,
        details: event.details ? JSON.stringify(event.details) : null,
        created_at: now(),
      }).execute();
    },

    async page(orgId: string | null, page: Page): Promise<{ total: number; items: AuditEventRow[] }> {
      let base = db.selectFrom('audit_events');
      if (orgId !== null) base = base.where('org_id', '=', orgId);
      const [count, items] = await Promise.all([
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.perPage).offset(page.offset).execute(),
      ]);
      return { total: Number(count.n), items };
    },
  };
}
export type AuditStore = ReturnType<typeof auditStore>;
