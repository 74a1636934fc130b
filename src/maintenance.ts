import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services.js';

const EVERY_MS = 60 * 60 * 1000;

/**
 * Hourly housekeeping on instances that run workers: raw upload bytes past their retention, and
 * expired sessions. Safe to run on every instance at once (plain deletes). Returns a stop function.
 */
export function startMaintenance(services: Services, log: FastifyBaseLogger): () => void {
  const run = async () => {
    try {
      const pruned = await services.scans.pruneRawContents();
      await services.sessions.pruneExpired();
      if (pruned > 0) log.info({ pruned }, 'pruned raw upload contents past their retention');
    } catch (error) {
      log.warn({ err: error }, 'housekeeping failed; will try again');
    }
  };
  const first = setTimeout(run, 10_000).unref();
  const timer = setInterval(run, EVERY_MS).unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
