import type { WebhookDeliveryRow, WebhookRow } from '../db/schema.js';
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
    last_status_code: row.last_status_code,
    last_duration_ms: row.last_duration_ms,
    last_response_body: row.last_response_body,
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at,
    // Only a delivery waiting for its turn has a next attempt.
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
