import type { FastifyBaseLogger } from 'fastify';
import type { AuditStore } from '../audit/store.js';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { Policy } from '../policy.js';
import type { AuthorizedRepo } from '../repos/service.js';
import { outboxWorkers, retryDelayMs } from '../jobs/outbox.js';
import { forgeAccessResolver, type ForgeAccess } from './access.js';
import { verdictRunner, type VerdictDeliveryOptions } from './delivery.js';
import { verdictService } from './service.js';
import { verdictStore } from './store.js';

const SENDERS_PER_WORKER = 2;
const POLL_MS = 1000;
const KEEP_FINISHED_DAYS = 30;

/** Verdicts on the forge: the delivery log and settings, and the workers that send them. */
export function createVerdicts(config: Config, db: Db, authorizedRepo: AuthorizedRepo, policy: Policy, audit: AuditStore) {
  const store = verdictStore(db.kysely, db.dialect);
  const workers = outboxWorkers(SENDERS_PER_WORKER);
  const forgeOf = forgeAccessResolver(config.providers, (repositoryId) => store.linkedProviderOf(repositoryId), config.forgeAllowPrivate);
  const options = (overrides: Partial<VerdictDeliveryOptions> = {}): VerdictDeliveryOptions => ({
    leaseMs: config.webhookLeaseMs, pollMs: POLL_MS, baseUrl: config.baseUrl, clock: Date.now, retryDelay: retryDelayMs, ...overrides,
  });
  return {
    store,
    service: verdictService({ store, authorizedRepo, policy, audit, onQueued: () => workers.wake() }),

    /** A runner over this database; tests move its clock and may name the forge. */
    runner: (log: FastifyBaseLogger, overrides?: Partial<VerdictDeliveryOptions>, forge?: (repositoryId: string) => ForgeAccess | null) =>
      verdictRunner(store, forge ?? forgeOf, options(overrides), log),

    startWorkers(count: number, log: FastifyBaseLogger): void {
      workers.start(count, verdictRunner(store, forgeOf, options(), log));
    },
    wake: workers.wake,
    stopWorkers: workers.stop,

    pruneDeliveries(): Promise<number> {
      return store.pruneFinished(new Date(Date.now() - KEEP_FINISHED_DAYS * 86_400_000).toISOString());
    },
  };
}
