import { Type, type Static } from 'typebox';
import { Nullable, Time, Timestamps } from '../http/schemas.js';
import { SEVERITIES } from '../domain/scan.js';
import { WEBHOOK_EVENTS } from './events.js';
import { FORMAT_NAMES } from './formats/index.js';

const MAX_REPOSITORIES = 1000;

export const WebhookParams = Type.Object({ id: Type.String(), webhook_id: Type.String() });
export const DeliveryParams = Type.Object({ id: Type.String(), webhook_id: Type.String(), delivery_id: Type.String() });

export const WebhookSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.Enum([...WEBHOOK_EVENTS])),
  min_severity: Type.Enum([...SEVERITIES]),
  format: Type.Enum(FORMAT_NAMES),
  active: Type.Boolean(),
  repository_ids: Nullable(Type.Array(Type.String())),
  ...Timestamps,
}, { title: 'Webhook', description: 'The secret is write-only: it is never returned.' });
export type WebhookJson = Static<typeof WebhookSchema>;

const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'The http(s) URL deliveries are POSTed to. Non-public addresses are refused unless SERVICE_WEBHOOK_ALLOW_PRIVATE=true.' });
const Secret = Type.String({ minLength: 8, maxLength: 256, description: 'Signs each delivery (X-Scanyard-Signature-256: sha256=<HMAC-SHA256 of the body>). Write-only.' });
const Events = Type.Array(Type.Enum([...WEBHOOK_EVENTS]), { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true });
const MinSeverity = Type.Enum([...SEVERITIES], { description: 'Finding events list only findings at or above this severity, and are not sent when there are none.' });
const Format = Type.Enum(FORMAT_NAMES, { description: 'json (the event), slack or teams (a readable message for their incoming webhooks).' });
const RepositoryIds = Nullable(Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: MAX_REPOSITORIES, uniqueItems: true, description: 'Only events of these repositories of the org; null for all.',
}));

export const CreateWebhookBody = Type.Object({
  url: Url,
  secret: Secret,
  events: Events,
  min_severity: Type.Optional(MinSeverity),
  format: Type.Optional(Format),
  active: Type.Optional(Type.Boolean()),
  repository_ids: Type.Optional(RepositoryIds),
}, { additionalProperties: false, description: 'min_severity defaults to info, format to json, active to true. A ping is delivered at once.' });
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Partial(CreateWebhookBody, { additionalProperties: false, description: 'Fields left out keep their value.' });
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const DeliverySchema = Type.Object({
  id: Type.String({ description: 'Also sent as X-Scanyard-Delivery, the same on every attempt.' }),
  webhook_id: Type.String(),
  event: Type.String(),
  status: Type.Enum(['pending', 'delivering', 'succeeded', 'failed']),
  attempts: Type.Integer(),
  last_status_code: Nullable(Type.Integer()),
  last_duration_ms: Nullable(Type.Integer()),
  last_response_body: Nullable(Type.String({ description: 'The first 1 KiB of the last answer.' })),
  last_error: Nullable(Type.String({ description: 'Why the last attempt got no answer (timeout, refused address, network).' })),
  last_attempt_at: Nullable(Time),
  next_attempt_at: Nullable(Time),
  created_at: Time,
  completed_at: Nullable(Time),
}, { title: 'WebhookDelivery' });
export type DeliveryJson = Static<typeof DeliverySchema>;
