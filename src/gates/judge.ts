import type { Transaction } from 'kysely';
import type { Database, UploadRow } from '../db/schema.js';
import type { Dialect } from '../db/index.js';
import { evaluateGate } from './evaluate.js';
import { announceSettled } from '../scans/settled.js';
import type { RefName } from '../refs/ref-name.js';
import { gateFacts, policyStore, recordGate, refIdOf, uploadChanges } from './store.js';

/**
 * Judges a completing upload against its repository's policy as its ref (branch, tag or pull
 * request) now stands, inside the transaction
 * that applies the upload, so the upload is never seen complete without its gate (or its changes
 * by severity, which CI prints); requests waiting on other instances hear of it at commit.
 */
export async function judgeUpload(trx: Transaction<Database>, dialect: Dialect, upload: UploadRow): Promise<void> {
  const { document } = await policyStore(trx).effectivePolicy(upload.repository_id);
  const changes = await uploadChanges(trx, upload);
  const refId = await refIdOf(trx, upload.repository_id, { kind: upload.ref_kind as RefName['kind'], name: upload.ref_name });
  const facts = await gateFacts(trx, refId, document, changes, new Date());
  await recordGate(trx, upload.id, evaluateGate(document, facts), changes);
  await announceSettled(trx, dialect, upload.id);
}
