import type { AuditEventRow } from '../db/schema.js';
import type { AuditEventJson } from './schema.js';

export function presentAuditEvent(row: AuditEventRow): AuditEventJson {
  return {
    id: row.id,
    action: row.action,
    actor: row.actor_id || row.actor_login ? { id: row.actor_id, login: row.actor_login } : null,
    org_id: row.org_id,
    target: row.target_type ? { type: row.target_type, id: row.target_id } : null,
    ip: row.ip,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : null,
    created_at: row.created_at,
  };
}
