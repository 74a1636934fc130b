import type { Kysely } from 'kysely';
import type { AuditEventRow, Database } from '../db/schema.js';
import { paginate, type Page, type Paged } from '../db/page.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';

/** Narrows a log read: `action` is an exact action name; `actor` a user id or a login. */
export interface AuditFilters {
  action?: string;
  actor?: string;
}

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

    page(orgId: string | null, filters: AuditFilters, page: Page): Promise<Paged<AuditEventRow>> {
      let base = db.selectFrom('audit_events');
      if (orgId !== null) base = base.where('org_id', '=', orgId);
      if (filters.action !== undefined) base = base.where('action', '=', filters.action);
      const actor = filters.actor;
      if (actor !== undefined) base = base.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_login', '=', actor)]));
      return paginate(base, page, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'));
    },
  };
}
export type AuditStore = ReturnType<typeof auditStore>;
