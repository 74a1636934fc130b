import type { ForgeDeliveryRow } from '../db/schema.js';
import { presentAttempts } from '../jobs/outbox.js';
import type { ForgeDeliveryJson } from './schema.js';
import type { Verdict } from './types.js';

/** The delivery as the log shows it: never its payload's token (it holds none) nor anything the forge was sent with. */
export function presentForgeDelivery(row: ForgeDeliveryRow): ForgeDeliveryJson {
  const verdict = JSON.parse(row.payload) as Pick<Verdict, 'state'>;
  return {
    id: row.id,
    repository_id: row.repository_id,
    upload_id: row.upload_id,
    kind: row.kind as ForgeDeliveryJson['kind'],
    event: verdict.state === 'in_progress' ? 'check.started' : 'verdict',
    status: row.status as ForgeDeliveryJson['status'],
    attempts: JSON.parse(row.attempt_log) as ForgeDeliveryJson['attempts'],
    external_id: row.external_id,
    ...presentAttempts(row),
  };
}
