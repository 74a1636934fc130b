import type { WebhookDeliveryRow, WebhookRow } from '../db/schema.js';
import { presentAttempts } from '../jobs/outbox.js';
import type { DeliveryJson, WebhookJson } from './schema.js';

/** Everything but the secret. */
export function presentWebhook(row: WebhookRow): WebhookJson {
  return {
    id: row.id,
    org_id: row.org_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookJson['events'],
    min_severity: row.min_severity as WebhookJson['min_severity'],
    format: row.format,
    active: row.active === 1,
    repository_ids: row.repository_ids === null ? null : JSON.parse(row.repository_ids) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentDelivery(row: WebhookDeliveryRow): DeliveryJson {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    status: row.status as DeliveryJson['status'],
    attempts: Number(row.attempts),
    ...presentAttempts(row),
  };
}
