import { createHash, type Hash } from 'node:crypto';
import type { DocumentMemory } from './document-memory.js';

/** Where a document of unknown size starts; it doubles as it fills. */
const FIRST_BYTES = 64 * 1024;

/**
 * A document as it arrives, copied a chunk at a time into memory the ingest thread can share (a
 * SharedArrayBuffer: the thread reads the document where it is, no copy is handed over) and hashed
 * (SHA-256) on the way. Nothing writes to it once received.
 *
 * Each chunk is copied as it comes, into memory sized once from Content-Length (or a gzip's stated
 * size), rather than the chunks being kept and joined at the end, then hashed: the chunks are not
 * held beside the document, and it is gone over once instead of twice. Not faster by itself: the
 * first touch of the shared memory is the cost either way (a page fault per 4 KiB, 8-16 µs each on
 * these hosts; a 33.6 MiB body took 154-250 ms copied and hashed as it came, 136-221 ms joined and
 * hashed after, with the same 8,600 faults). A chunk (64 KiB from the socket, 16 KiB from gunzip)
 * takes well under a millisecond, so no request waits on it. A document of no stated size grows by
 * doubling, each time copying what it holds (a multipart body's file part is sized from the body's
 * Content-Length, so only a chunked upload grows).
 *
 * Given a DocumentMemory, a large document takes its memory from there, and whoever reads the
 * document after gives it back with `memory.release(content.buffer)`.
 */
export class DocumentBuffer {
  #bytes: Buffer<SharedArrayBuffer>;
  #size = 0;
  readonly #hash: Hash = createHash('sha256');

  /**
   * `expected`: the size the sender stated, when it did (it may be wrong: the document grows past it,
   * and is cut to what arrived); `limit`: the most it may grow to, which the caller enforces.
   */
  constructor(expected: number | undefined, private readonly limit: number, private readonly memory?: DocumentMemory) {
    this.#bytes = this.#allocate(Math.min(expected ?? FIRST_BYTES, limit));
  }

  get size(): number {
    return this.#size;
  }

  append(chunk: Uint8Array): void {
    const end = this.#size + chunk.length;
    if (end > this.#bytes.length) this.#grow(end);
    this.#bytes.set(chunk, this.#size);
    this.#size = end;
    this.#hash.update(chunk);
  }

  /** The document and its SHA-256 (hex); call once, after the last chunk. */
  finish(): { content: Buffer<SharedArrayBuffer>; sha256: string } {
    return { content: this.#bytes.subarray(0, this.#size), sha256: this.#hash.digest('hex') };
  }

  /** Gives the memory back unfinished (the upload was refused). */
  discard(): void {
    this.memory?.release(this.#bytes.buffer);
  }

  #grow(needed: number): void {
    const grown = this.#allocate(Math.max(needed, Math.min(2 * this.#bytes.length, this.limit)));
    grown.set(this.#bytes.subarray(0, this.#size));
    this.memory?.release(this.#bytes.buffer);
    this.#bytes = grown;
  }

  #allocate(bytes: number): Buffer<SharedArrayBuffer> {
    return Buffer.from(this.memory ? this.memory.take(bytes, this.limit) : new SharedArrayBuffer(bytes));
  }
}
