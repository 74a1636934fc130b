import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';
import { DISPLAY_NAME_FORMAT } from '../names.js';

const Scope = Type.Union([Type.Literal('read'), Type.Literal('upload'), Type.Literal('write')], {
  description: 'read: GET only. upload: read plus scan uploads (what a CI pipeline needs). write: everything its user may do.',
});

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to recognise it.' }),
  scopes: Type.Array(Scope),
  org_ids: Nullable(Type.Array(Type.String())),
  created_at: Time,
  expires_at: Nullable(Time),
  last_used_at: Nullable(Time),
}, { title: 'ApiKey' });
export type ApiKeyJson = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Intersect([
  ApiKeySchema,
  Type.Object({ key: Type.String({ description: 'The secret. Shown this once; store it now.' }) }),
], { title: 'CreatedApiKey' });

export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, format: DISPLAY_NAME_FORMAT, description: 'What the key is for; at least one visible character, no bidirectional controls.' }),
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 3, description: 'Default ["write"]. The broadest listed applies.' })),
  org_ids: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100, description: 'Narrow the key to some of your organizations.' }))),
}, { additionalProperties: false });
