import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { DatabaseConfig, Db } from '../db/index.js';
import { uploadStore } from './upload-store.js';
import { openBlobStore } from '../blobs/index.js';
import { HandedOver } from './handed-over.js';
import { DocumentMemory } from '../bodies/document-memory.js';
import { scanService } from './service.js';
import type { AuthorizedRepo } from '../repos/service.js';
import { refStore } from '../refs/store.js';
import { settlementWatch } from './settled.js';
import { processClaimed, startIngestThread, startWorkers, type UploadEvents, type WorkerOptions, type WorkerPool } from './worker.js';

const MAX_ATTEMPTS = 5;
const POLL_MS = 1000;
/** Two documents of the largest size allowed, and never more than this. */
const HAND_OVER_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Whether `workers` ingest workers run in the ingest thread (startIngestThread), which then also
 * checkpoints SQLite's write-ahead log for the process (main.ts). An in-memory SQLite database, which
 * no other connection can open, keeps its workers in process.
 */
export function runsIngestThread(database: DatabaseConfig, workers: number): boolean {
  return workers > 0 && !(database.kind === 'sqlite' && database.file === ':memory:');
}

/** Uploads, results and the ingest workers, wired together. */
export function createScans(config: Config, db: Db, authorizedRepo: AuthorizedRepo) {
  const handOverBytes = Math.min(2 * config.maxUploadBytes, HAND_OVER_MAX_BYTES);
  // As much as the ingest thread keeps handed over: the documents of two uploads of the largest size.
  const documents = new DocumentMemory(handOverBytes);
  // Read by workers in this process (an in-memory database); the ingest thread keeps its own.
  const handedOver = new HandedOver(handOverBytes, (_uploadId, content) => documents.release(content.buffer as SharedArrayBuffer));
  const blobs = config.blob ? openBlobStore(config.blob) : null;
  const uploads = uploadStore(db.kysely, db.dialect, handedOver, blobs);
  const refs = refStore(db.kysely);
  const options: WorkerOptions = { leaseMs: config.uploadLeaseMs, pollMs: POLL_MS, maxAttempts: MAX_ATTEMPTS };
  let pool: WorkerPool | null = null;
  const settlements = settlementWatch(config.database);
  const events: UploadEvents = { settled: (uploadId) => settlements.settled(uploadId) };

  return {
    uploads,
    /** Where uploads' large documents are received into (DocumentBuffer), used again once stored and parsed. */
    documents,
    events,
    settlements,
    service: scanService({
      uploads, authorizedRepo, settlements,
      onReceived: (uploadId, format, content) => pool?.handOver(uploadId, format, content),
      onAccepted: (format) => {
        events.accepted?.(format);
        pool?.wake();
      },
    }),

    /** In a thread of their own where runsIngestThread says so, logging as `log` does (a disabled logger has no level). */
    startWorkers(count: number, log: FastifyBaseLogger): void {
      if (count <= 0) return;
      pool = !runsIngestThread(config.database, count)
        ? {
          ...startWorkers({ db, uploads, log, events }, count, options),
          handOver: (uploadId, _format, content) => {
            documents.share(content.buffer);
            handedOver.put(uploadId, content);
          },
        }
        : startIngestThread({ database: config.database, blob: config.blob, count, options, logLevel: log.level ?? 'silent', handOverBytes }, events, log, documents);
    },

    async stopWorkers(): Promise<void> {
      await pool?.stop();
      pool = null;
    },

    /**
     * Drops raw bytes of completed uploads past SERVICE_RAW_RETENTION_DAYS (0 keeps them forever),
     * then deletes from the object store every object whose row is gone, by retention or with a
     * deleted analysis, ref, repository or organisation.
     */
    async pruneRawContents(): Promise<number> {
      const pruned = config.rawRetentionDays === 0 ? 0
        : await uploads.pruneContents(new Date(Date.now() - config.rawRetentionDays * 86_400_000).toISOString());
      await uploads.deleteForgottenObjects();
      return pruned;
    },

    /**
     * Removes branches and pull requests idle past SERVICE_REF_RETENTION_DAYS (0 keeps them
     * forever), with their results; never a default branch, never a tag.
     */
    async pruneIdleRefs(at: Date = new Date()): Promise<number> {
      if (config.refRetentionDays === 0) return 0;
      return refs.removeIdle(new Date(at.getTime() - config.refRetentionDays * 86_400_000).toISOString());
    },

    /** Processes every waiting upload now, in this call (tests and the benchmark use it). */
    async drain(log: FastifyBaseLogger): Promise<number> {
      let processed = 0;
      for (let claimed = await uploads.claim(options.leaseMs); claimed; claimed = await uploads.claim(options.leaseMs)) {
        await processClaimed({ db, uploads, log, events }, claimed, options);
        processed++;
      }
      return processed;
    },
  };
}
export type Scans = ReturnType<typeof createScans>;
