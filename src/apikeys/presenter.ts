import type { ApiKeyRow } from '../db/schema.js';
import type { KeyScope } from '../domain/actor.js';
import type { ApiKeyJson } from './schema.js';

export function presentApiKey(row: ApiKeyRow): ApiKeyJson {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: [row.scope as KeyScope],
    org_ids: row.org_ids ? (JSON.parse(row.org_ids) as string[]) : null,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
  };
}
