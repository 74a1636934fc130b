import type { Actor } from '../domain/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { WebhookDeliveryRow, WebhookRow } from '../db/schema.js';
import type { Page } from '../db/page.js';
import type { Severity } from '../domain/scan.js';
import type { Policy } from '../policy.js';
import { badRequest, conflict, idErrors, notFound, type FieldError } from '../problem.js';
import { newId } from '../db/ids.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { now } from '../db/time.js';
import { checkHookUrlResolved } from './address.js';
import type { WebhookEventName } from './events.js';
import type { WebhookStore } from './store.js';

const HOOK = 'The webhook';
const ORG = 'The organization';

/** A hook's settings as a person chose them; on update, what is left out keeps its value. */
export interface WebhookSettings {
  url: string;
  secret: string;
  events: WebhookEventName[];
  minSeverity: Severity;
  format: string;
  active: boolean;
  repositoryIds: string[] | null;
}

export interface WebhookServiceDeps {
  store: WebhookStore;
  policy: Policy;
  audit: AuditStore;
  allowPrivate: boolean;
  /** A delivery was queued: wake this instance's delivery workers. */
  onQueued(): void;
}

export function webhookService({ store, policy, audit, allowPrivate, onQueued }: WebhookServiceDeps) {
  async function validate(orgId: string, settings: Partial<WebhookSettings>): Promise<void> {
    const errors: FieldError[] = [];
    if (settings.url !== undefined) {
      const problem = await checkHookUrlResolved(settings.url, allowPrivate);
      if (problem) errors.push({ path: '/url', message: problem });
    }
    if (settings.repositoryIds) {
      const inOrg = await store.reposInOrg(orgId, settings.repositoryIds);
      errors.push(...idErrors('repository_ids', settings.repositoryIds, inOrg, 'is not a repository of this organization'));
    }
    if (errors.length) throw badRequest('The webhook settings are not valid.', errors);
  }

  /** The hook, when it belongs to this org and the actor may manage the org's hooks. */
  async function load(actor: Actor, orgId: string, id: string, action: 'webhook.read' | 'webhook.manage'): Promise<WebhookRow> {
    await policy.require(actor, action, { orgId, what: ORG });
    const hook = await store.byId(id);
    if (!hook || hook.org_id !== orgId) throw notFound(HOOK);
    return hook;
  }

  // The URL stays out of the audit details: chat webhook URLs carry a token in their path.
  const auditDetails = (s: Partial<WebhookSettings>) => ({
    ...(s.events ? { events: s.events } : {}), ...(s.format ? { format: s.format } : {}),
    ...(s.active !== undefined ? { active: s.active } : {}), ...(s.url !== undefined ? { url_changed: true } : {}),
    ...(s.secret !== undefined ? { secret_changed: true } : {}),
  });

  return {
    async list(actor: Actor, orgId: string, page: Page) {
      await policy.require(actor, 'webhook.read', { orgId, what: ORG });
      return store.page(orgId, page);
    },

    get: (actor: Actor, orgId: string, id: string) => load(actor, orgId, id, 'webhook.read'),

    async create(actor: Actor, orgId: string, settings: WebhookSettings, ip: string): Promise<WebhookRow> {
      await policy.require(actor, 'webhook.manage', { orgId, what: ORG });
      await validate(orgId, settings);
      const at = now();
      const hook = await store.insert({
        id: newId(), org_id: orgId, url: settings.url, secret: settings.secret, events: JSON.stringify(settings.events),
        min_severity: settings.minSeverity, format: settings.format, active: settings.active ? 1 : 0,
        repository_ids: settings.repositoryIds === null ? null : JSON.stringify(settings.repositoryIds),
        created_by: actor.user.id, created_at: at, updated_at: at,
      }).catch((error: unknown) => {
        // The org was deleted meanwhile: its foreign key is gone.
        if (isForeignKeyViolation(error)) throw notFound(ORG);
        throw error;
      });
      onQueued();
      await audit.record({ action: 'webhook.created', actor: actor.user, orgId, ip, target: { type: 'webhook', id: hook.id }, details: auditDetails(settings) });
      return hook;
    },

    async update(actor: Actor, orgId: string, id: string, settings: Partial<WebhookSettings>, ip: string): Promise<WebhookRow> {
      await load(actor, orgId, id, 'webhook.manage');
      await validate(orgId, settings);
      const updated = await store.update(id, {
        ...(settings.url !== undefined ? { url: settings.url } : {}),
        ...(settings.secret !== undefined ? { secret: settings.secret } : {}),
        ...(settings.events !== undefined ? { events: JSON.stringify(settings.events) } : {}),
        ...(settings.minSeverity !== undefined ? { min_severity: settings.minSeverity } : {}),
        ...(settings.format !== undefined ? { format: settings.format } : {}),
        ...(settings.active !== undefined ? { active: settings.active ? 1 : 0 } : {}),
        ...(settings.repositoryIds !== undefined ? { repository_ids: settings.repositoryIds === null ? null : JSON.stringify(settings.repositoryIds) } : {}),
        updated_at: now(),
      });
      if (!updated) throw notFound(HOOK);
      if (settings.active) onQueued();
      await audit.record({ action: 'webhook.updated', actor: actor.user, orgId, ip, target: { type: 'webhook', id }, details: auditDetails(settings) });
      return updated;
    },

    async delete(actor: Actor, orgId: string, id: string, ip: string): Promise<void> {
      await load(actor, orgId, id, 'webhook.manage');
      if (!(await store.delete(id))) throw notFound(HOOK);
      await audit.record({ action: 'webhook.deleted', actor: actor.user, orgId, ip, target: { type: 'webhook', id } });
    },

    async deliveries(actor: Actor, orgId: string, id: string, page: Page) {
      await load(actor, orgId, id, 'webhook.read');
      return store.deliveries(id, page);
    },

    /** Queues a ping to the hook, to check that its receiver answers. */
    async ping(actor: Actor, orgId: string, id: string, ip: string): Promise<WebhookDeliveryRow> {
      const hook = await load(actor, orgId, id, 'webhook.manage');
      const delivery = await store.ping(hook);
      onQueued();
      await audit.record({ action: 'webhook.pinged', actor: actor.user, orgId, ip, target: { type: 'webhook', id } });
      return delivery;
    },

    /** Sends a finished delivery again, with the same id (receivers dedupe on it). */
    async redeliver(actor: Actor, orgId: string, id: string, deliveryId: string, ip: string): Promise<WebhookDeliveryRow> {
      await load(actor, orgId, id, 'webhook.manage');
      const delivery = await store.delivery(id, deliveryId);
      if (!delivery) throw notFound('The delivery');
      const queued = await store.redeliver(id, deliveryId, now());
      if (!queued) throw conflict('This delivery is still being attempted; it can be sent again once it has succeeded or failed.');
      onQueued();
      await audit.record({ action: 'webhook.redelivered', actor: actor.user, orgId, ip, target: { type: 'webhook', id }, details: { delivery_id: deliveryId } });
      return queued;
    },
  };
}
