import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { openDatabase } from '../db/index.js';
import { LARGE_UPLOAD_BYTES, uploadStore } from './upload-store.js';
import { HandedOver } from './handed-over.js';
import { openBlobStore } from '../blobs/index.js';
import { EarlyParse, startWorkers, type IngestThreadCommand, type IngestThreadData, type IngestThreadEvent } from './worker.js';

/**
 * The ingest thread (see startIngestThread): the instance's upload workers, on database connections
 * of their own (each worker's transaction holds one, and lease renewals need one beside them),
 * reporting what the in-process events would have said.
 */
const CHECKPOINT_MS = 1000;
const data = workerData as IngestThreadData;
const port = parentPort!;
// No commit of this thread checkpoints SQLite's write-ahead log either: a 100,000-result upload's
// commit spent 0.2-0.3 s of its 0.3 s copying the log into the database file, and the upload reads
// `complete` only once its commit returns. The timer below checkpoints instead, after it.
const db = openDatabase(data.database, data.count + 1, { checkpoints: false });
const post = (event: IngestThreadEvent) => port.postMessage(event);
const log = pino({ level: data.logLevel });
const handedOver = new HandedOver(data.handOverBytes, (uploadId) => post({ type: 'handed-back', uploadId }));
const early = new EarlyParse(LARGE_UPLOAD_BYTES);
const pool = startWorkers({
  db,
  uploads: uploadStore(db.kysely, db.dialect, handedOver, data.blob ? openBlobStore(data.blob) : null),
  parsedEarly: (uploadId) => early.take(uploadId),
  log,
  events: {
    completed: (format, seconds, counts) => post({ type: 'completed', format, seconds, counts }),
    failed: (format, reason) => post({ type: 'failed', format, reason }),
    settled: (uploadId) => post({ type: 'settled', uploadId }),
  },
}, data.count, data.options);

// The only checkpoints of the process (main.ts: the request thread makes none, as one runs inside a
// commit and would hold every request). Between uploads at the latest: the workers yield to timers
// after each (jobs/loops.ts), so the log holds about a second of commits, or, when uploads take
// longer, the one in hand and the one before.
const checkpoints = db.dialect === 'sqlite'
  ? setInterval(() => db.checkpoint().catch((error: unknown) => log.warn({ err: error }, 'checkpointing the database failed')), CHECKPOINT_MS)
  : undefined;

port.on('message', (command: IngestThreadCommand) => {
  if (command.type === 'wake') pool.wake();
  else if (command.type === 'hand-over') {
    const content = Buffer.from(command.content.buffer, command.content.byteOffset, command.content.byteLength);
    // Parsed before it is kept: keeping may hand it back at once (too large), and then its memory may hold another document.
    early.offer(command.uploadId, command.format, content);
    handedOver.put(command.uploadId, content);
  }
  else {
    clearInterval(checkpoints);
    void pool.stop().then(() => db.close()).then(() => port.close());
  }
});
