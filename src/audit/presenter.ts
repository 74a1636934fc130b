import { Type, type Static, type TSchema } from 'typebox';
import type { AuditEventRow } from '../db/schema.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const AuditEventSchema = Type.Object({
  id: Type.String(),
  action: Type.String({ description: 'e.g. signed_in, dev_login, api_key.created, member.added, org.deleted.' }),
  actor: Nullable(Type.Object({ id: Nullable(Type.String()), login: Nullable(Type.String()) })),
  org_id: Nullable(Type.String()),
  target: Nullable(Type.Object({ type: Type.String(), id: Nullable(Type.String()) })),
  ip: Nullable(Type.String()),
  details: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Type.String({ format: 'date-time' }),
}, { title: 'AuditEvent' });

export function presentAuditEvent(row: AuditEventRow): Static<typeof AuditEventSchema> {
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
