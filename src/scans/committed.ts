import type { Transaction } from 'kysely';
import type { Database, UploadRow } from '../db/schema.js';
import type { Dialect } from '../db/index.js';
import type { ImportCounts, SeverityChanges } from '../domain/changes.js';
import { judgeUpload } from '../gates/judge.js';
import { enqueueAdvisoryMatched, enqueueUploadCompleted, enqueueUploadFailed } from '../webhooks/outbox.js';
import { announceSettled } from './settled.js';
import { enqueueCheckFailed, enqueueCheckStarted, enqueueVerdict } from '../verdicts/outbox.js';

/** What ingest committed about an upload (or a re-match of a ref's components): applied, or failed. */
export type UploadCommitted =
  | {
    outcome: 'complete';
    upload: UploadRow;
    /** What it changed, as the upload's counts say. */
    counts: ImportCounts;
    /** What it opened, reopened and fixed, per severity. */
    changes: SeverityChanges;
    /** A re-match after an advisory import, which nobody sent: its effects say what the advisories opened. */
    rematch: boolean;
  }
  | { outcome: 'failed'; upload: UploadRow; reason: string };

type Subscriber = (trx: Transaction<Database>, dialect: Dialect, event: UploadCommitted) => Promise<void>;

/**
 * Everything a settled upload sets off, in one list, each run in the transaction that settles it:
 * the upload is never seen complete without its gate, and what goes out (webhook deliveries; pull
 * request verdicts and tickets next) is written to a durable outbox that delivery workers send with
 * retries, so a crash between the commit and a side effect loses nothing. A new capability adds a
 * subscriber here; ingest itself calls none of them.
 */
const SUBSCRIBERS: readonly Subscriber[] = [
  // The gate first: a failed gate's event is queued before the upload's own.
  async (trx, _dialect, event) => {
    if (event.outcome === 'complete') await judgeUpload(trx, event.upload, event.changes);
  },
  async (trx, _dialect, event) => {
    if (event.outcome === 'failed') await enqueueUploadFailed(trx, event.upload, event.reason);
    else if (event.rematch) await enqueueAdvisoryMatched(trx, event.upload, event.counts);
    else await enqueueUploadCompleted(trx, event.upload, event.counts);
  },
  // Pull request verdicts for the forge (check run, comment), after the gate they report.
  async (trx, _dialect, event) => {
    if (event.outcome === 'failed') await enqueueCheckFailed(trx, event.upload, event.reason);
    else if (!event.rematch) await enqueueVerdict(trx, event.upload, event.changes);
  },
  // Last: requests waiting on other instances read the upload once this transaction commits.
  (trx, dialect, { upload }) => announceSettled(trx, dialect, upload.id),
];

export async function publishCommitted(trx: Transaction<Database>, dialect: Dialect, event: UploadCommitted): Promise<void> {
  for (const subscriber of SUBSCRIBERS) await subscriber(trx, dialect, event);
}

/** Everything an upload sets off when it arrives, in the transaction that stores it. */
const ACCEPTED_SUBSCRIBERS: readonly ((trx: Transaction<Database>, upload: UploadRow) => Promise<void>)[] = [
  // The pull request's check run shows `in_progress` while the upload is processed.
  enqueueCheckStarted,
];

export async function publishAccepted(trx: Transaction<Database>, upload: UploadRow): Promise<void> {
  for (const subscriber of ACCEPTED_SUBSCRIBERS) await subscriber(trx, upload);
}
