import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { userStore } from './users/store.js';
import { sessionStore } from './auth/session-store.js';
import { apiKeyStore } from './apikeys/store.js';
import { auditStore } from './audit/store.js';
import { apiKeyService } from './apikeys/service.js';

/** Stores and services, built once per app from the database; routes receive what they need. */
export function createServices(config: Config, db: Db) {
  const k = db.kysely;
  const users = userStore(k);
  const apiKeys = apiKeyStore(k);
  const audit = auditStore(k);
  return {
    config,
    db,
    users,
    sessions: sessionStore(k),
    apiKeys,
    audit,
    apiKeyService: apiKeyService(apiKeys, users, audit),
  };
}
export type Services = ReturnType<typeof createServices>;
