import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EventPayload } from './events.js';
import { formatNamed } from './formats/index.js';
import { send } from './send.js';
import type { ClaimedDelivery, WebhookStore } from './store.js';
import { outboxRunner, type OutboxOptions, type OutboxRunner } from '../jobs/outbox.js';

/**
 * Deliveries of one org in flight at once, across its hooks. A receiver that never answers holds a
 * sender for the whole timeout; without a cap, an org's few such hooks held every sender, and every
 * other org's events waited behind them (five made a healthy hook's ping wait 50 s).
 */
export const IN_FLIGHT_PER_ORG = 2;

export interface DeliveryOptions extends OutboxOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  baseUrl: string;
  userAgent: string;
}

/** The hex HMAC-SHA256 of the raw body with the hook's secret, as in X-Scanyard-Signature-256. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function deliveryRunner(store: WebhookStore, options: DeliveryOptions, log: FastifyBaseLogger): OutboxRunner {
  return outboxRunner<ClaimedDelivery>({
    what: 'webhook',
    claim: (at, leaseUntil) => store.claim(at, leaseUntil, IN_FLIGHT_PER_ORG),
    attempts: ({ delivery }) => delivery.attempts,
    renewLease: ({ delivery }, leaseUntil) => store.renewLease(delivery, leaseUntil),
    record: ({ delivery }, outcome, next) => store.record(delivery, outcome, next),
    logFields: ({ delivery, hook }) => ({ delivery_id: delivery.id, webhook_id: hook.id, event: delivery.event }),
    async attempt({ delivery, hook }) {
      const payload = JSON.parse(delivery.payload) as EventPayload;
      const body = JSON.stringify(formatNamed(hook.format).render(payload, { baseUrl: options.baseUrl, deliveryId: delivery.id }));
      const result = await send({
        url: hook.url, body, timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate,
        headers: {
          'content-type': 'application/json',
          'user-agent': options.userAgent,
          'x-scanyard-event': delivery.event,
          'x-scanyard-delivery': delivery.id,
          'x-scanyard-signature-256': signature(hook.secret, body),
        },
      });
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      return { ok, status: result.status, body: result.body, error: result.error };
    },
  }, options, log);
}
