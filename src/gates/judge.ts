import type { Transaction } from 'kysely';
import type { Database, UploadRow } from '../db/schema.js';
import { evaluateGate } from './evaluate.js';
import type { RefName } from '../domain/ref-name.js';
import { enqueueEvent } from '../webhooks/outbox.js';
import type { Gate } from './types.js';
import type { SeverityChanges } from '../domain/changes.js';
import { gateFacts, policyStore, recordGate } from './store.js';
import { refIdOf } from '../refs/store.js';

/** gate.failed, written with the verdict so a hook hears of every failed gate and of nothing else. */
async function enqueueGateFailed(trx: Transaction<Database>, upload: UploadRow, gate: Gate): Promise<void> {
  const repo = await trx.selectFrom('repos').select('org_id').where('id', '=', upload.repository_id).executeTakeFirst();
  if (!repo) return;
  await enqueueEvent(trx, {
    orgId: repo.org_id, repositoryId: upload.repository_id, event: 'gate.failed',
    payload: {
      upload: { id: upload.id, format: upload.format, category: upload.category, commit_sha: upload.commit_sha, ref: upload.ref, base_ref: upload.base_ref },
      gate,
    },
  });
}

/**
 * Judges a completing upload against its repository's policy as its ref (branch, tag or pull
 * request) now stands, inside the transaction that applies the upload, so the upload is never seen
 * complete without its gate (or its changes by severity, which CI prints). `counted`: what ingest
 * opened, reopened and fixed as it applied it.
 */
export async function judgeUpload(trx: Transaction<Database>, upload: UploadRow, counted: SeverityChanges): Promise<void> {
  const { document } = await policyStore(trx).effectivePolicy(upload.repository_id);
  const changes = { upload, ...counted };
  const refId = await refIdOf(trx, upload.repository_id, { kind: upload.ref_kind as RefName['kind'], name: upload.ref_name });
  const facts = await gateFacts(trx, refId, document, changes, new Date());
  const gate = evaluateGate(document, facts);
  await recordGate(trx, upload.id, gate, changes, facts.introduced);
  if (gate.status === 'fail') await enqueueGateFailed(trx, upload, gate);
}
