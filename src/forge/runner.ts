import type { FastifyBaseLogger } from 'fastify';
import { startLoops, type Loops } from '../jobs/loops.js';
import { ForgeSyncError, type ForgeSyncClient } from './clients/index.js';
import type { ForgeStore } from './store.js';

export interface RunnerOptions {
  /** Every link is reconciled when its last pass is older than this. */
  reconcileMs: number;
  leaseMs: number;
  pollMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The forge workers: one loop applies queued webhook events (each asks for a pass of what it names),
 * one runs due passes: read everything asked of the forge first, then apply it in one transaction,
 * so a forge that fails halfway leaves the previous state and its error on the link.
 */
export function forgeRunner(store: ForgeStore, clients: Map<string, ForgeSyncClient>, options: RunnerOptions, log: FastifyBaseLogger) {
  async function applyEvent(): Promise<boolean> {
    const event = await store.claimEvent(iso(Date.now()), iso(Date.now() + options.leaseMs)).catch((error: unknown) => {
      log.error({ err: error }, 'claiming a forge event failed');
      return undefined;
    });
    if (!event) return false;
    try {
      const client = clients.get(event.provider_id);
      const route = client?.route(event.event, JSON.parse(event.payload));
      if (route) {
        for (const link of await store.linksAround(event.provider_id, route.owner, route.prefix ?? false)) await store.requestPass(link.org_id, route.parts);
      }
      await store.finishEvent(event.id, null);
      passes?.wake();
    } catch (error) {
      log.error({ err: error, event: event.event, provider: event.provider_id }, 'applying a forge event failed');
      await store.finishEvent(event.id, 'could not be applied').catch(() => undefined);
    }
    return true;
  }

  async function runPass(): Promise<boolean> {
    const at = Date.now();
    const claimed = await store.claimPass(iso(at), iso(at + options.leaseMs), iso(at - options.reconcileMs)).catch((error: unknown) => {
      log.error({ err: error }, 'claiming a forge sync pass failed');
      return undefined;
    });
    if (!claimed) return false;
    const { link, parts } = claimed;
    let held = claimed.held;
    let lost = false;
    // A large owner's pass can outlast the lease: renewed every third of it (one renewal at a time,
    // each from the lease the last one gave), so no other instance starts a second pass meanwhile.
    let renewing = Promise.resolve();
    const heartbeat = setInterval(() => {
      renewing = renewing.then(async () => {
        const next = iso(Date.now() + options.leaseMs);
        if (await store.renewPass(link.org_id, held, next)) held = next;
        else lost = true;
      }).catch(() => undefined);
    }, Math.max(100, options.leaseMs / 3));
    const client = clients.get(link.provider_id);
    try {
      if (!client) throw new ForgeSyncError(`The provider "${link.provider_id}" is no longer configured with sync credentials`);
      const snapshot = await client.readSnapshot(link.owner, parts);
      clearInterval(heartbeat);
      await renewing;
      if (lost || !(await store.apply(link, held, snapshot))) {
        log.warn({ org: link.org_id, provider: link.provider_id }, 'a forge sync pass lost its lease to another worker; what it read was not applied');
        return true;
      }
      await store.finishPass(link.org_id, held, { syncedAt: iso(Date.now()) });
      log.info({ org: link.org_id, provider: link.provider_id, parts, ms: Date.now() - at }, 'forge sync pass done');
    } catch (error) {
      clearInterval(heartbeat);
      await renewing;
      const message = error instanceof ForgeSyncError ? error.message : 'The sync failed inside Scanyard; see the service log';
      if (!(error instanceof ForgeSyncError)) log.error({ err: error, org: link.org_id }, 'forge sync pass failed');
      else log.warn({ org: link.org_id, provider: link.provider_id, reason: message }, 'forge sync pass stopped');
      await store.finishPass(link.org_id, held, { error: message }).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
      await renewing;
    }
    return true;
  }

  let events: Loops | null = null;
  let passes: Loops | null = null;
  return {
    start(): void {
      events ??= startLoops(1, options.pollMs, applyEvent);
      passes ??= startLoops(1, options.pollMs, runPass);
    },
    wake(): void {
      events?.wake();
      passes?.wake();
    },
    async stop(): Promise<void> {
      await Promise.all([events?.stop(), passes?.stop()]);
      events = null;
      passes = null;
    },
  };
}
