import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { userStore } from './users/store.js';
import { sessionStore } from './auth/session-store.js';
import { apiKeyStore } from './apikeys/store.js';
import { auditStore } from './audit/store.js';
import { apiKeyService } from './apikeys/service.js';
import { orgServices } from './orgs/org-services.js';
import { createScans } from './scans/index.js';
import { createMetrics } from './http/metrics.js';

/** Stores and services, built once per app from the database; routes receive what they need. */
export function createServices(config: Config, db: Db) {
  const k = db.kysely;
  const users = userStore(k);
  const apiKeys = apiKeyStore(k);
  const audit = auditStore(k);
  const orgs = orgServices(k, users, audit);
  const scans = createScans(config, db, (actor, repoId) => orgs.repoService.visibleRepo(actor, repoId));
  const metrics = createMetrics(() => scans.uploads.queueStats());
  scans.events.accepted = (format) => metrics.uploadReceived(format);
  scans.events.completed = (format, seconds) => metrics.uploadCompleted(format, seconds);
  scans.events.failed = (format) => metrics.uploadFailed(format);
  return {
    config,
    db,
    users,
    sessions: sessionStore(k),
    apiKeys,
    audit,
    apiKeyService: apiKeyService(apiKeys, users, audit),
    ...orgs,
    scans,
    metrics,
  };
}
export type Services = ReturnType<typeof createServices>;
