import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseConfig, Db } from '../db/index.js';
import type { BlobConfig } from '../config.js';
import { isDataError } from '../db/errors.js';
import { detectFormat, DetectError } from './detect.js';
import { parseScan } from './parsers/index.js';
import { type NormalisedScan, type ScanFormat } from '../domain/scan.js';
import { ParseError } from './parsers/types.js';
import { applyScan } from './ingest.js';
import { REMATCH_FORMAT } from '../domain/rematch.js';
import type { ImportCounts } from '../domain/changes.js';
import { stripNul } from './strip-nul.js';
import type { ClaimedUpload, UploadStore } from './upload-store.js';
import { startLoops, type Loops } from '../jobs/loops.js';
import type { DocumentMemory } from '../bodies/document-memory.js';

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
export interface WorkerPool extends Loops {
  /**
   * An upload this instance is storing, with its document, for the worker that claims it: see
   * HandedOver. The ingest thread parses a large one at once, while the instance stores it.
   * Called before the upload is stored, so the document is there before the upload can be claimed.
   * The document is shared memory (DocumentBuffer): the thread reads it where it is, with no copy.
   */
  handOver(uploadId: string, format: string, content: Buffer<SharedArrayBuffer>): void;
}

/** What the ingest thread is started with. */
export interface IngestThreadData {
  database: DatabaseConfig;
  /** The object store raw bytes are kept in, if any (the thread opens its own client). */
  blob: BlobConfig | null;
  count: number;
  options: WorkerOptions;
  logLevel: string;
  /** How many bytes of handed-over documents the thread keeps at most. */
  handOverBytes: number;
}

/** The thread's events, as `UploadEvents` would have said them in process. */
export type IngestThreadEvent =
  | { type: 'completed'; format: string; seconds: number; counts: ImportCounts }
  /** The thread will not read the document of this upload again (HandedOver's letGo): its memory may hold another. */
  | { type: 'handed-back'; uploadId: string }
  | { type: 'failed'; format: string; reason: string }
  | { type: 'settled'; uploadId: string };

/** What the instance tells its ingest thread. A document crosses as a Uint8Array over the instance's shared memory, not a copy. */
export type IngestThreadCommand = { type: 'wake' } | { type: 'stop' } | { type: 'hand-over'; uploadId: string; format: string; content: Uint8Array<SharedArrayBuffer> };

/**
 * Runs the ingest workers in a thread of their own (`ingest-thread.ts`) with their own database
 * connections, so parsing, fingerprinting and the ingest transaction never hold up the event loop
 * that answers requests: a 64 MiB upload took the status read's loop for seconds. The thread is
 * started again if it dies; stop() lets it finish the uploads in hand first.
 */
export function startIngestThread(data: IngestThreadData, events: UploadEvents, log: FastifyBaseLogger, memory: DocumentMemory): WorkerPool {
  let thread: Worker;
  let running = false;
  let stopping = false;
  let stopped: () => void = () => undefined;
  /** The memory of the documents the thread holds, by upload, until it hands them back. */
  const lent = new Map<string, SharedArrayBuffer>();
  const start = () => {
    thread = spawnIngestThread(data);
    running = true;
    thread.on('message', (event: IngestThreadEvent) => {
      if (event.type === 'completed') events.completed?.(event.format, event.seconds, event.counts);
      else if (event.type === 'failed') events.failed?.(event.format, event.reason);
      else if (event.type === 'settled') events.settled?.(event.uploadId);
      else if (event.type === 'handed-back') {
        const handed = lent.get(event.uploadId);
        lent.delete(event.uploadId);
        if (handed) memory.release(handed);
      }
    });
    thread.on('error', (error) => log.error({ err: error }, 'the ingest thread failed'));
    thread.on('exit', (code) => {
      running = false;
      // A dead thread hands nothing back; what it held goes to the garbage collector, never to another document.
      for (const handed of lent.values()) memory.forget(handed);
      lent.clear();
      if (stopping) return stopped();
      // Its claims expire and are taken again, by this thread once restarted or by another instance.
      log.error({ code }, 'the ingest thread exited; starting it again');
      setTimeout(() => {
        if (!stopping) start();
      }, 1000).unref();
    });
  };
  start();
  return {
    wake: () => thread.postMessage({ type: 'wake' } satisfies IngestThreadCommand),
    handOver: (uploadId, format, content) => {
      memory.share(content.buffer);
      lent.set(uploadId, content.buffer);
      thread.postMessage({ type: 'hand-over', uploadId, format, content } satisfies IngestThreadCommand);
    },
    stop: () => new Promise<void>((resolve) => {
      stopping = true;
      // Between an unexpected exit and the restart there is no thread to wait for.
      if (!running) return resolve();
      stopped = resolve;
      thread.postMessage({ type: 'stop' } satisfies IngestThreadCommand);
    }),
  };
}

/**
 * From the build, the thread runs `ingest-thread.js`. From source (`npm run dev`, the process tests,
 * the benchmark: all under tsx) it runs the `.ts` file, through tsx, which a worker thread does not
 * inherit from the process.
 */
function spawnIngestThread(data: IngestThreadData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./ingest-thread.js', import.meta.url), { workerData: data });
  const register = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./ingest-thread.ts', import.meta.url).href;
  return new Worker(`import(${JSON.stringify(register)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`, { eval: true, workerData: data });
}

export interface WorkerDeps {
  db: Db;
  uploads: UploadStore;
  log: FastifyBaseLogger;
  events?: UploadEvents;
  /** The upload's document as parsed before it was claimed (see EarlyParse), if it was. */
  parsedEarly?: (uploadId: string) => ParseResult | undefined;
}

export function startWorkers(deps: WorkerDeps, count: number, options: WorkerOptions): Loops {
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

export async function processClaimed(deps: WorkerDeps, claimed: ClaimedUpload, options: WorkerOptions): Promise<void> {
  const { upload } = claimed;
  const log = deps.log.child({ upload_id: upload.id, repository_id: upload.repository_id });
  const started = performance.now();
  if (upload.attempts > options.maxAttempts) {
    claimed.release();
    await deps.uploads.fail(upload, `Processing was interrupted ${options.maxAttempts} times; the upload was given up.`);
    deps.events?.settled?.(upload.id);
    return;
  }
  const heartbeat = setInterval(() => {
    deps.uploads.renewLease(upload, options.leaseMs).catch(() => undefined);
  }, Math.max(1000, options.leaseMs / 3));
  try {
    const scan = scanOf(deps, claimed);
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
    const reason = error instanceof ParseError || error instanceof DetectError ? error.message
      // Tried again, the same data would be refused again: failed now, saying why.
      : isDataError(error) ? `The database refused this document's data: ${(error as Error).message}` : null;
    if (reason !== null) {
      await deps.uploads.fail(upload, reason);
      deps.events?.failed?.(upload.format, reason);
      deps.events?.settled?.(upload.id);
      log.info({ reason }, 'upload failed');
    } else {
      // A database outage or a bug: leave the claim to expire so the upload is tried again.
      log.error({ err: error }, 'processing an upload failed unexpectedly; it will be retried');
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The claimed upload's scan: parsed before the claim, or now. The document is let go of here (the
 * claim keeps an empty one, and its memory is released), as nothing after the parse needs it: the
 * apply that follows runs without its size (up to the 64 MiB limit) held.
 */
function scanOf(deps: WorkerDeps, claimed: ClaimedUpload): NormalisedScan {
  const { upload, content } = claimed;
  claimed.content = NO_CONTENT;
  try {
    if (upload.format === REMATCH_FORMAT) return { format: 'findings', analyses: [] };
    const early = deps.parsedEarly?.(upload.id);
    if (early instanceof Error) throw early;
    return early ?? parseDocument(upload.format, content);
  } finally {
    claimed.release();
  }
}

const NO_CONTENT = Buffer.alloc(0);

function parseDocument(format: string, content: Buffer): NormalisedScan {
  const { syntax } = detectFormat(content, { format });
  return stripNul(content, parseScan(content, format as ScanFormat, syntax));
}

/** A parse's outcome: the scan, or the error that fails the upload. */
export type ParseResult = NormalisedScan | ParseError | DetectError;

/**
 * One large document parsed as soon as it was handed over, while the instance was still hashing,
 * compressing and storing it (0.1-0.2 s of a 33 MiB SARIF), so the worker that claims the upload
 * starts from the parsed scan. One at a time, and only while fresh: a parsed scan is several times
 * its document's size, and one this instance's workers never claim (another instance took it, or
 * storing it failed) must not stay.
 */
export class EarlyParse {
  #held: { uploadId: string; result: ParseResult; at: number } | null = null;

  constructor(private readonly minBytes: number, private readonly maxAgeMs = 60_000, private readonly clock: () => number = Date.now) {}

  offer(uploadId: string, format: string, content: Buffer): void {
    if (this.#held && this.clock() - this.#held.at > this.maxAgeMs) this.#held = null;
    if (this.#held || content.length < this.minBytes) return;
    const result = parseOutcome(format, content);
    if (result) this.#held = { uploadId, result, at: this.clock() };
  }

  take(uploadId: string): ParseResult | undefined {
    if (this.#held?.uploadId !== uploadId) return undefined;
    const { result } = this.#held;
    this.#held = null;
    return result;
  }
}

/** Undefined on an unexpected error (a bug): the claim parses again and handles it as it always has. */
function parseOutcome(format: string, content: Buffer): ParseResult | undefined {
  try {
    return parseDocument(format, content);
  } catch (error) {
    return error instanceof ParseError || error instanceof DetectError ? error : undefined;
  }
}
