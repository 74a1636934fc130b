import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.js';
import { detectFormat, DetectError } from './detect.js';
import { parseScan } from './parsers/index.js';
import { ParseError, type NormalisedScan, type ScanFormat } from './parsers/types.js';
import type { UploadRow } from '../db/schema.js';
import { applyScan, REMATCH_FORMAT } from './ingest.js';
import type { ImportCounts } from './severity.js';
import { stripNul } from './strip-nul.js';
import type { ClaimedUpload, UploadStore } from './upload-store.js';
import { startLoops, type Loops } from '../jobs/loops.js';

export interface WorkerOptions {
  /** How long a claim holds before another worker may take the upload (renewed while working). */
  leaseMs: number;
  /** How often an idle worker looks for work it was not woken for (uploads to other instances). */
  pollMs: number;
  /** After this many claims an upload is failed instead of retried: it keeps killing its workers. */
  maxAttempts: number;
}

export interface UploadEvents {
  accepted?(format: string): void;
  completed?(format: string, seconds: number, counts: ImportCounts): void;
  failed?(format: string, reason: string): void;
  /** After the commit that made the upload complete or failed. */
  settled?(uploadId: string): void;
}

/** Wakes idle workers when an upload arrives on this instance; stops after the uploads in hand. */
export type WorkerPool = Loops;

export interface WorkerDeps {
  db: Db;
  uploads: UploadStore;
  log: FastifyBaseLogger;
  events?: UploadEvents;
}

export function startWorkers(deps: WorkerDeps, count: number, options: WorkerOptions): WorkerPool {
  return startLoops(count, options.pollMs, async () => {
    let claimed: ClaimedUpload | undefined;
    try {
      claimed = await deps.uploads.claim(options.leaseMs);
    } catch (error) {
      deps.log.warn({ err: error }, 'could not claim an upload; retrying');
    }
    if (!claimed) return false;
    await processClaimed(deps, claimed, options);
    return true;
  });
}

export async function processClaimed(deps: WorkerDeps, { upload, content }: ClaimedUpload, options: WorkerOptions): Promise<void> {
  const log = deps.log.child({ upload_id: upload.id, repository_id: upload.repository_id });
  const started = performance.now();
  if (upload.attempts > options.maxAttempts) {
    await deps.uploads.fail(upload, `Processing was interrupted ${options.maxAttempts} times; the upload was given up.`);
    deps.events?.settled?.(upload.id);
    return;
  }
  const heartbeat = setInterval(() => {
    deps.uploads.renewLease(upload, options.leaseMs).catch(() => undefined);
  }, Math.max(1000, options.leaseMs / 3));
  try {
    const scan = upload.format === REMATCH_FORMAT ? { format: 'findings' as const, analyses: [] } : parse(upload, content);
    const counts = await applyScan(deps.db, upload, scan);
    if (counts === null) {
      log.warn('the claim on this upload was lost to another worker; its work was not committed');
      return;
    }
    const seconds = (performance.now() - started) / 1000;
    log.info({ format: upload.format, seconds, ...counts }, 'upload processed');
    deps.events?.completed?.(upload.format, seconds, counts);
    deps.events?.settled?.(upload.id);
  } catch (error) {
    if (error instanceof ParseError || error instanceof DetectError) {
      await deps.uploads.fail(upload, error.message);
      deps.events?.failed?.(upload.format, error.message);
      deps.events?.settled?.(upload.id);
      log.info({ reason: error.message }, 'upload failed');
    } else {
      // A database outage or a bug: leave the claim to expire so the upload is tried again.
      log.error({ err: error }, 'processing an upload failed unexpectedly; it will be retried');
    }
  } finally {
    clearInterval(heartbeat);
  }
}

function parse(upload: UploadRow, content: Buffer): NormalisedScan {
  const { syntax } = detectFormat(content, { format: upload.format });
  return stripNul(content, parseScan(content, upload.format as ScanFormat, syntax));
}
