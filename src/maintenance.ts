import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services.js';

const EVERY_MS = 60 * 60 * 1000;

/**
 * Hourly housekeeping on instances that run workers: raw upload bytes past their retention, branches
 * and pull requests idle past theirs, expired sessions, and webhook deliveries finished more than 30
 * days ago. Safe to run on every instance at once
 * (plain deletes). Returns a stop function.
 */
export function startMaintenance(services: Services, log: FastifyBaseLogger): () => void {
  const run = () => runMaintenance(services, log);
  const first = setTimeout(run, 10_000).unref();
  const timer = setInterval(run, EVERY_MS).unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}

/** One round of housekeeping; a failure is logged and the next round tries again. */
export async function runMaintenance(services: Services, log: FastifyBaseLogger): Promise<void> {
  try {
    const pruned = await services.scans.pruneRawContents();
    const refs = await services.scans.pruneIdleRefs();
    await services.sessions.pruneExpired();
    await services.webhooks.pruneDeliveries();
    const expired = await services.findingService.expireDismissals();
    if (pruned > 0) log.info({ pruned }, 'pruned raw upload contents past their retention');
    if (refs > 0) log.info({ refs }, 'removed branches and pull requests idle past their retention');
    if (expired > 0) log.info({ expired }, 'reopened findings whose dismissal expired');
  } catch (error) {
    log.warn({ err: error }, 'housekeeping failed; will try again');
  }
}
