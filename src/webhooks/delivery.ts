import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { EventPayload } from './events.js';
import { formatNamed } from './formats/index.js';
import { send, type SendResult } from './send.js';
import type { ClaimedDelivery, WebhookStore } from './store.js';
import { startLoops, type Loops } from '../jobs/loops.js';

/** After this many attempts a delivery is marked failed. */
export const MAX_ATTEMPTS = 12;
const FIRST_RETRY_MS = 10_000;
const RETRY_GROWTH = 3;
const LONGEST_RETRY_MS = 5 * 3_600_000;

/**
 * How long to wait after failed attempt `attempt` (1-based): 10 s, 30 s, 90 s, 4.5 min, 13.5 min,
 * 40 min, 2 h, then 5 h, each ±20% so that receivers coming back are not hit by every sender at
 * once. The 12 attempts span about 23 hours.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * RETRY_GROWTH ** (attempt - 1), LONGEST_RETRY_MS);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Deliveries of one org in flight at once, across its hooks. A receiver that never answers holds a
 * sender for the whole timeout; without a cap, an org's few such hooks held every sender, and every
 * other org's events waited behind them (five made a healthy hook's ping wait 50 s).
 */
export const IN_FLIGHT_PER_ORG = 2;

export interface DeliveryOptions {
  /** How long a claim holds without renewal (renewed every third of it while sending). */
  leaseMs: number;
  /** How often an idle worker looks for due deliveries. */
  pollMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  baseUrl: string;
  userAgent: string;
  /** Milliseconds since the epoch: injectable so tests can move time instead of waiting. */
  clock: () => number;
  /** The wait after failed attempt n. */
  retryDelay: (attempt: number) => number;
}

/** Wakes idle delivery workers when an event is written here; stops after the deliveries in hand. */
export type DeliveryPool = Loops;

/** The hex HMAC-SHA256 of the raw body with the hook's secret, as in X-Scanyard-Signature-256. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function deliveryRunner(store: WebhookStore, options: DeliveryOptions, log: FastifyBaseLogger) {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function claim(): Promise<ClaimedDelivery | undefined> {
    const at = options.clock();
    return store.claim(iso(at), iso(at + options.leaseMs), IN_FLIGHT_PER_ORG);
  }

  /** Sends one claimed delivery and records the attempt. */
  async function deliver({ delivery, hook }: ClaimedDelivery): Promise<void> {
    const payload = JSON.parse(delivery.payload) as EventPayload;
    const body = JSON.stringify(formatNamed(hook.format).render(payload, { baseUrl: options.baseUrl, deliveryId: delivery.id }));
    const heartbeat = setInterval(() => {
      store.renewLease(delivery, iso(options.clock() + options.leaseMs)).catch(() => undefined);
    }, Math.max(500, options.leaseMs / 3));
    let result: SendResult;
    try {
      result = await send({
        url: hook.url, body, timeoutMs: options.timeoutMs, allowPrivate: options.allowPrivate,
        headers: {
          'content-type': 'application/json',
          'user-agent': options.userAgent,
          'x-scanyard-event': delivery.event,
          'x-scanyard-delivery': delivery.id,
          'x-scanyard-signature-256': signature(hook.secret, body),
        },
      });
    } finally {
      clearInterval(heartbeat);
    }
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const at = options.clock();
    const next = ok ? { status: 'succeeded' as const, at: iso(at) }
      : delivery.attempts >= MAX_ATTEMPTS ? { status: 'failed' as const, at: iso(at) }
        : { status: 'pending' as const, nextAttemptAt: iso(at + options.retryDelay(delivery.attempts)) };
    const recorded = await store.record(delivery, {
      last_status_code: result.status, last_duration_ms: result.durationMs, last_response_body: result.body, last_error: result.error,
    }, next);
    // The URL is left out on purpose: chat webhook URLs carry their own secret in the path.
    const fields = { delivery_id: delivery.id, webhook_id: hook.id, event: delivery.event, attempt: delivery.attempts, status_code: result.status, ms: result.durationMs };
    if (!recorded) log.warn(fields, 'the claim on this delivery was lost to another worker; its attempt was not recorded');
    else if (ok) log.info(fields, 'webhook delivered');
    else log.info({ ...fields, error: result.error, outcome: next.status }, 'webhook delivery failed');
  }

  return {
    /** Sends every delivery that is due now, one after another (tests use it). */
    async deliverDue(): Promise<number> {
      let sent = 0;
      for (let claimed = await claim(); claimed; claimed = await claim()) {
        await deliver(claimed);
        sent++;
      }
      return sent;
    },

    /**
     * Sends up to `senders` deliveries at once. One loop claims (so an idle instance asks the
     * database once per poll, not once per sender) and hands each claim to a send of its own; when
     * every sender is busy it waits for one to finish. Stopping waits for the sends in hand.
     */
    start(senders: number): DeliveryPool {
      const sending = new Set<Promise<void>>();
      const loop = startLoops(1, options.pollMs, async () => {
        if (sending.size >= senders) {
          await Promise.race(sending);
          return true;
        }
        let claimed: ClaimedDelivery | undefined;
        try {
          claimed = await claim();
        } catch (error) {
          log.warn({ err: error }, 'could not claim a webhook delivery; retrying');
        }
        if (!claimed) return false;
        const send = deliver(claimed).catch((error: unknown) => {
          // A database outage while recording: the claim expires and the delivery is sent again.
          log.error({ err: error, delivery_id: claimed.delivery.id }, 'recording a webhook delivery failed; it will be retried');
        }).finally(() => {
          sending.delete(send);
          // The hook's next delivery may have waited for this one.
          loop.wake();
        });
        sending.add(send);
        return true;
      });
      return {
        wake: loop.wake,
        async stop() {
          await loop.stop();
          await Promise.all(sending);
        },
      };
    },
  };
}
export type DeliveryRunner = ReturnType<typeof deliveryRunner>;
