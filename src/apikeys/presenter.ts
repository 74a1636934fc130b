import { Type, type Static } from 'typebox';
import type { ApiKeyRow } from '../db/schema.js';

const Scope = Type.Union([Type.Literal('read'), Type.Literal('upload'), Type.Literal('write')], {
  description: 'read: GET only. upload: read plus scan uploads (what a CI pipeline needs). write: everything its user may do.',
});
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise it.' }),
  scopes: Type.Array(Scope),
  org_ids: Nullable(Type.Array(Type.String())),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
}, { title: 'ApiKey' });

export const CreatedApiKeySchema = Type.Intersect([
  ApiKeySchema,
  Type.Object({ key: Type.String({ description: 'The secret. Shown this once; store it now.' }) }),
], { title: 'CreatedApiKey' });

export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 3, description: 'Default ["write"]. The broadest listed applies.' })),
  org_ids: Type.Optional(Nullable(Type.Array(Type.String(), { minItems: 1, maxItems: 100, description: 'Narrow the key to some of your organizations.' }))),
}, { additionalProperties: false });
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export function presentApiKey(row: ApiKeyRow): Static<typeof ApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: [row.scope as Static<typeof Scope>],
    org_ids: row.org_ids ? (JSON.parse(row.org_ids) as string[]) : null,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
  };
}
