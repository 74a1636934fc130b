import type { Actor } from '../domain/actor.js';
import type { Page } from '../db/page.js';
import type { Policy } from '../policy.js';
import type { AuditFilters, AuditStore } from './store.js';

/** Reading the audit log; every service writes to it through the store directly. */
export function auditService(events: AuditStore, policy: Policy) {
  return {
    async ofOrg(actor: Actor, orgId: string, filters: AuditFilters, page: Page) {
      await policy.require(actor, 'audit.read', { orgId, what: 'The organization' });
      return events.page(orgId, filters, page);
    },

    async ofSite(actor: Actor, filters: AuditFilters, page: Page) {
      await policy.require(actor, 'audit.read_site');
      return events.page(null, filters, page);
    },
  };
}
