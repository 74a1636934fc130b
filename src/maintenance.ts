import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services.js';

/**
 * Housekeeping every `SERVICE_MAINTENANCE_SECONDS` (hourly by default) on instances that run
 * workers: raw upload bytes past their retention, branches and pull requests idle past theirs,
 * expired sessions, unanswered SAML requests and expired SAML assertion ids, webhook deliveries finished more than 30 days ago, and dismissals whose
 * `dismissed_until` has passed (their findings open again), and each repository's daily metrics
 * snapshots up to yesterday (every missing day: the backfill after migration 0034, catch-up after downtime). Safe to run on every instance at once
 * (deletes, and reopening under the repository lock). Returns a stop function.
 */
export function startMaintenance(services: Services, log: FastifyBaseLogger): () => void {
  const run = () => runMaintenance(services, log);
  const first = setTimeout(run, Math.min(10_000, services.config.maintenanceMs)).unref();
  const timer = setInterval(run, services.config.maintenanceMs).unref();
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
    await services.ciIdentity.prune();
    await services.saml.prune();
    await services.forge.pruneEvents();
    await services.verdicts.pruneDeliveries();
    const expired = await services.findingService.expireDismissals();
    // Once a day per repository: only days not yet written are, so every hourly round after the first of a day writes nothing.
    const days = await services.metricsService.snapshot();
    if (pruned > 0) log.info({ pruned }, 'pruned raw upload contents past their retention');
    if (refs > 0) log.info({ refs }, 'removed branches and pull requests idle past their retention');
    if (expired > 0) log.info({ expired }, 'reopened findings whose dismissal expired');
    if (days > 0) log.info({ days }, 'wrote daily metrics snapshots of repositories');
  } catch (error) {
    log.warn({ err: error }, 'housekeeping failed; will try again');
  }
}
