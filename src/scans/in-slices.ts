import { createHash } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';

/**
 * Work on a large document (up to SERVICE_MAX_UPLOAD_BYTES, 64 MiB by default) in slices, with a turn
 * of the event loop between them, so that the thread answering requests never holds still for the
 * whole document: copying 60 MiB into fresh memory took 60-70 ms and hashing it 45 ms here, every
 * request waiting meanwhile. A slice takes about 2 ms.
 */
const SLICE_BYTES = 2 * 1024 * 1024;

/**
 * `chunks` (of `size` bytes in all) joined into one buffer, a turn of the event loop every slice's
 * worth. The buffer is shared memory (a SharedArrayBuffer), so the ingest thread reads the document
 * where it is while this thread stores it: the copy the hand-over made instead took 0.1-0.14 s of a
 * 33 MiB upload, mostly in page faults of the fresh memory, and held a second copy meanwhile.
 * Nothing writes to it once joined.
 */
export async function joinInSlices(chunks: readonly Uint8Array[], size: number): Promise<Buffer<SharedArrayBuffer>> {
  const whole = Buffer.from(new SharedArrayBuffer(size));
  let offset = 0;
  let sinceTurn = 0;
  for (const chunk of chunks) {
    if (sinceTurn >= SLICE_BYTES) {
      await turn();
      sinceTurn = 0;
    }
    whole.set(chunk, offset);
    offset += chunk.length;
    sinceTurn += chunk.length;
  }
  return whole;
}

/** The SHA-256 of `bytes`, in hex. */
export async function sha256InSlices(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let offset = 0; offset < bytes.length; offset += SLICE_BYTES) {
    if (offset > 0) await turn();
    hash.update(bytes.subarray(offset, offset + SLICE_BYTES));
  }
  return hash.digest('hex');
}
