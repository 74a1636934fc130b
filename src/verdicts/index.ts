import type { FastifyBaseLogger } from 'fastify';
import type { AuditStore } from '../audit/store.js';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { Policy } from '../policy.js';
import type { AuthorizedRepo } from '../repos/service.js';
import type { Loops } from '../jobs/loops.js';
import { retryDelayMs } from '../webhooks/delivery.js';
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
  let pool: Loops | null = null;
  const forgeOf = forgeAccessResolver(config.providers, (repositoryId) => store.linkedProviderOf(repositoryId));
  const options = (overrides: Partial<VerdictDeliveryOptions> = {}): VerdictDeliveryOptions => ({
    leaseMs: config.webhookLeaseMs, pollMs: POLL_MS, baseUrl: config.baseUrl, clock: Date.now, retryDelay: retryDelayMs, ...overrides,
  });
  return {
    store,
    service: verdictService({ store, authorizedRepo, policy, audit, onQueued: () => pool?.wake() }),

    /** A runner over this database; tests move its clock and may name the forge. */
    runner: (log: FastifyBaseLogger, overrides?: Partial<VerdictDeliveryOptions>, forge?: (repositoryId: string) => ForgeAccess | null) =>
      verdictRunner(store, forge ?? forgeOf, options(overrides), log),

    startWorkers(count: number, log: FastifyBaseLogger): void {
      if (count > 0) pool = verdictRunner(store, forgeOf, options(), log).start(count * SENDERS_PER_WORKER);
    },

    wake(): void {
      pool?.wake();
    },

    async stopWorkers(): Promise<void> {
      await pool?.stop();
      pool = null;
    },

    pruneDeliveries(): Promise<number> {
      return store.pruneFinished(new Date(Date.now() - KEEP_FINISHED_DAYS * 86_400_000).toISOString());
    },
  };
}
