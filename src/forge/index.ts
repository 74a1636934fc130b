import type { FastifyBaseLogger } from 'fastify';
import type { AuditStore } from '../audit/store.js';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { Policy } from '../policy.js';
import { createSyncClient, type ForgeCallOptions, type ForgeSyncClient } from './clients/index.js';
import { forgeRunner } from './runner.js';
import { forgeService } from './service.js';
import { forgeStore } from './store.js';

const POLL_MS = 1000;
/** A pass holds its link this long; a worker that died mid-pass frees it after. */
const LEASE_MS = 15 * 60_000;

/** Forge links, their sync clients (one per provider with sync credentials) and the forge workers, wired together. */
export function createForgeSync(config: Config, db: Db, policy: Policy, audit: AuditStore, forgeTokenOf: (sessionId: string) => Promise<string | null>) {
  const store = forgeStore(db.kysely, db.dialect);
  const clients = new Map<string, ForgeSyncClient>();
  for (const provider of config.providers) {
    const call: ForgeCallOptions = {
      name: provider.name, allowPrivate: config.forgeAllowPrivate, timeoutMs: 30_000, maxWaitMs: 5 * 60_000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), clock: Date.now,
    };
    const client = createSyncClient(provider, call);
    if (client) clients.set(provider.id, client);
  }
  let runner: ReturnType<typeof forgeRunner> | null = null;
  return {
    store,
    service: forgeService({ store, policy, audit, providers: config.providers, clients, forgeTokenOf, wake: () => runner?.wake() }),
    startWorkers(log: FastifyBaseLogger): void {
      if (clients.size === 0) return;
      runner ??= forgeRunner(store, clients, { reconcileMs: config.forgeSyncMs, leaseMs: LEASE_MS, pollMs: POLL_MS }, log);
      runner.start();
    },
    /**
     * Drops applied forge events after 30 days: long past a redelivery (GitHub keeps deliveries 3 days),
     * so a delivery id is still recognised whenever the forge could resend it.
     */
    pruneEvents(): Promise<void> {
      return store.pruneEvents(new Date(Date.now() - 30 * 86_400_000).toISOString());
    },
    async stopWorkers(): Promise<void> {
      await runner?.stop();
      runner = null;
    },
  };
}
