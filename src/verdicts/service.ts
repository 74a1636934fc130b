import type { Actor } from '../domain/actor.js';
import type { ForgeDeliveryRow } from '../db/schema.js';
import type { Page, Paged } from '../db/page.js';
import { now } from '../db/time.js';
import { conflict, notFound } from '../problem.js';
import type { AuditStore } from '../audit/store.js';
import type { Policy } from '../policy.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { VerdictStore } from './store.js';
import { DEFAULT_PR_FEEDBACK, type PrFeedback } from './types.js';

export interface VerdictServiceDeps {
  store: VerdictStore;
  authorizedRepo: AuthorizedRepo;
  policy: Policy;
  audit: AuditStore;
  onQueued(): void;
}

/** The forge delivery log of a repository, redelivery, and what is posted on pull requests. */
export function verdictService({ store, authorizedRepo, policy, audit, onQueued }: VerdictServiceDeps) {
  return {
    async deliveries(actor: Actor, repositoryId: string, page: Page): Promise<Paged<ForgeDeliveryRow>> {
      await authorizedRepo(actor, repositoryId, 'repo.read');
      return store.page(repositoryId, page);
    },

    /** Sends a finished delivery again: what it created on the forge is edited, never made twice. */
    async redeliver(actor: Actor, repositoryId: string, deliveryId: string, ip: string): Promise<ForgeDeliveryRow> {
      const repo = await authorizedRepo(actor, repositoryId, 'repo.configure');
      if (!(await store.byId(repositoryId, deliveryId))) throw notFound('The delivery');
      const queued = await store.redeliver(repositoryId, deliveryId, now());
      if (!queued) throw conflict('This delivery is still being attempted; it can be sent again once it has succeeded or failed.');
      onQueued();
      await audit.record({ action: 'forge_delivery.redelivered', actor: actor.user, orgId: repo.org_id, ip, target: { type: 'repo', id: repositoryId }, details: { delivery_id: deliveryId } });
      return queued;
    },

    /** The organisation's setting (the defaults when it set none). */
    async orgFeedback(orgId: string): Promise<PrFeedback> {
      return (await store.orgFeedback(orgId)) ?? DEFAULT_PR_FEEDBACK;
    },

    async setOrgFeedback(actor: Actor, orgId: string, feedback: Partial<PrFeedback>): Promise<PrFeedback> {
      await policy.require(actor, 'org.manage', { orgId, what: 'The organization' });
      const next = { ...((await store.orgFeedback(orgId)) ?? DEFAULT_PR_FEEDBACK), ...feedback };
      await store.setOrgFeedback(orgId, next);
      return next;
    },

    /** The repository's own setting; null when it follows its organisation's. */
    repoFeedback(repositoryId: string): Promise<PrFeedback | null> {
      return store.repoFeedback(repositoryId);
    },

    async setRepoFeedback(actor: Actor, repositoryId: string, feedback: PrFeedback | null): Promise<PrFeedback | null> {
      await authorizedRepo(actor, repositoryId, 'repo.configure');
      await store.setRepoFeedback(repositoryId, feedback);
      return feedback;
    },
  };
}

