import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { Nullable, Time } from '../http/schemas.js';

export const AuditEventSchema = Type.Object({
  id: Type.String(),
  action: Type.String({ description: 'e.g. signed_in, dev_login, api_key.created, member.added, org.deleted.' }),
  actor: Nullable(Type.Object({ id: Nullable(Type.String()), login: Nullable(Type.String()) })),
  org_id: Nullable(Type.String()),
  target: Nullable(Type.Object({ type: Type.String(), id: Nullable(Type.String()) })),
  ip: Nullable(Type.String()),
  details: Nullable(Type.Record(Type.String(), Type.Unknown())),
  created_at: Time,
}, { title: 'AuditEvent' });
export type AuditEventJson = Static<typeof AuditEventSchema>;

export const AuditQuery = Type.Object({
  ...PageQuery.properties,
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only events with exactly this action, e.g. member.added.' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only events by this person: a user id or a login.' })),
});
export type AuditQuery = Static<typeof AuditQuery>;
