import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';

export const ForgeDeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });

export const ForgeDeliverySchema = Type.Object({
  id: Type.String(),
  repository_id: Type.String(),
  upload_id: Nullable(Type.String()),
  kind: Type.Enum(['check_run', 'comment', 'status', 'note'], {
    description: 'check_run (GitHub) or status (GitLab, Gitea, Forgejo; on Bitbucket the build status with its Code Insights report); comment (GitHub, Gitea, Forgejo, Bitbucket) or note (GitLab).',
  }),
  event: Type.String({ description: 'What the delivery says: verdict, or check.started while the upload is processed.' }),
  status: Type.Enum(['pending', 'delivering', 'succeeded', 'failed']),
  attempts: Type.Array(Type.Object({
    status_code: Nullable(Type.Integer({ description: "The forge's answer; null when none came." })),
    at: Time,
  }), { description: 'Every attempt, oldest first.' }),
  external_id: Nullable(Type.String({ description: 'What the forge called what this created (check run id, comment id, commit): later attempts edit it.' })),
  last_status_code: Nullable(Type.Integer()),
  last_duration_ms: Nullable(Type.Integer()),
  last_response_body: Nullable(Type.String({ description: "The first 1 KiB of the forge's last failed answer." })),
  last_error: Nullable(Type.String()),
  last_attempt_at: Nullable(Time),
  next_attempt_at: Nullable(Time),
  created_at: Time,
  completed_at: Nullable(Time),
}, { title: 'ForgeDelivery', description: 'A verdict sent to the forge. Tokens are never shown.' });
export type ForgeDeliveryJson = Static<typeof ForgeDeliverySchema>;
