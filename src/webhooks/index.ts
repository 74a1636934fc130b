import type { FastifyBaseLogger } from 'fastify';
import type { AuditStore } from '../audit/store.js';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { Policy } from '../policy.js';
import { version } from '../version.js';
import { outboxWorkers, retryDelayMs } from '../jobs/outbox.js';
import { deliveryRunner, type DeliveryOptions } from './delivery.js';
import { webhookService } from './service.js';
import { webhookStore } from './store.js';

const TIMEOUT_MS = 10_000;
/**
 * Deliveries sent at once per ingest worker. Sending is waiting on receivers, not work: several at
 * once cost little, and with IN_FLIGHT_PER_ORG they keep one org's silent receivers from holding up
 * the others.
 */
const SENDERS_PER_WORKER = 8;
const POLL_MS = 1000;
/** Finished deliveries are kept this long for the deliveries list, then pruned. */
const KEEP_FINISHED_DAYS = 30;

/** Webhooks, their service and the delivery workers, wired together. */
export function createWebhooks(config: Config, db: Db, policy: Policy, audit: AuditStore) {
  const store = webhookStore(db.kysely, db.dialect);
  const options = (overrides: Partial<DeliveryOptions> = {}): DeliveryOptions => ({
    leaseMs: config.webhookLeaseMs, pollMs: POLL_MS, timeoutMs: TIMEOUT_MS, allowPrivate: config.webhookAllowPrivate,
    baseUrl: config.baseUrl, userAgent: `Scanyard-Hookshot/${version}`, clock: Date.now, retryDelay: retryDelayMs,
    ...overrides,
  });
  const workers = outboxWorkers(SENDERS_PER_WORKER);

  return {
    store,
    service: webhookService({ store, policy, audit, allowPrivate: config.webhookAllowPrivate, onQueued: () => workers.wake() }),

    /** A runner over this database, with time and retries as given (tests move the clock). */
    runner: (log: FastifyBaseLogger, overrides?: Partial<DeliveryOptions>) => deliveryRunner(store, options(overrides), log),

    startWorkers(count: number, log: FastifyBaseLogger): void {
      workers.start(count, deliveryRunner(store, options(), log));
    },

    /** Wakes this instance's delivery workers: an event was just committed here. */
    wake: workers.wake,
    stopWorkers: workers.stop,

    /** Drops deliveries that finished more than KEEP_FINISHED_DAYS ago (the maintenance job calls it). */
    pruneDeliveries(): Promise<number> {
      return store.pruneFinished(new Date(Date.now() - KEEP_FINISHED_DAYS * 86_400_000).toISOString());
    },
  };
}
