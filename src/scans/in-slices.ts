import { createHash } from 'node:crypto';
import { setImmediate as turn } from 'node:timers/promises';

/**
 * Work on a large document (up to SERVICE_MAX_UPLOAD_BYTES, 64 MiB by default) in slices, with a turn
 * of the event loop between them, so that the thread answering requests never holds still for the
 * whole document: copying 60 MiB into fresh memory took 60-70 ms and hashing it 45 ms here, every
 * request waiting meanwhile. A slice takes about 2 ms.
 */
const SLICE_BYTES = 2 * 1024 * 1024;

/** Calls `work` on each slice of `bytes` in order, with its offset, a turn of the event loop between them. */
async function eachSlice(bytes: Uint8Array, work: (slice: Uint8Array, offset: number) => void): Promise<void> {
  for (let offset = 0; offset < bytes.length; offset += SLICE_BYTES) {
    if (offset > 0) await turn();
    work(bytes.subarray(offset, offset + SLICE_BYTES), offset);
  }
}

/** A copy of `bytes` in memory of its own (an ArrayBuffer that can be moved to another thread). */
export async function copyInSlices(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const copy = new Uint8Array(bytes.length);
  await eachSlice(bytes, (slice, offset) => copy.set(slice, offset));
  return copy;
}

/** `chunks` (of `size` bytes in all) joined into one buffer, a turn of the event loop every slice's worth. */
export async function joinInSlices(chunks: readonly Uint8Array[], size: number): Promise<Buffer> {
  const whole = Buffer.allocUnsafeSlow(size);
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
  await eachSlice(bytes, (slice) => hash.update(slice));
  return hash.digest('hex');
}
