/** Below this, a document's memory is made new each time and not kept: it costs little. */
const KEPT_MIN_BYTES = 1024 * 1024;
/** Kept memory is sized in steps of this, so that documents of about the same size fit each other's. */
const STEP_BYTES = 1024 * 1024;
/** Memory nobody took for this long is let go of: an idle instance does not hold it. */
const IDLE_MS = 60_000;

/**
 * Shared memory for large documents (DocumentBuffer), used again once everybody reading it is done:
 * the request thread once the upload is stored, the ingest thread once it has parsed the document or
 * dropped it. Made new each time, it stayed: the request thread, idle while an upload is ingested,
 * holds the memory of every document it received until its next garbage collection, which an idle
 * thread puts off (its array buffers grew 68, 110, 144, 180, 216 MiB over four 33.6 MiB uploads).
 *
 * Memory goes back only when its last reader says so; a reader that never does (an ingest thread
 * that died, a path that forgot) leaves it to the garbage collector, never to another document.
 */
export class DocumentMemory {
  readonly #free: SharedArrayBuffer[] = [];
  /** Memory handed out, by how many still read it. Weak: memory nobody gives back is collected. */
  readonly #readers = new WeakMap<SharedArrayBuffer, number>();
  #idle: NodeJS.Timeout | undefined;

  /** `keepBytes`: the most memory kept while nobody uses it. */
  constructor(private readonly keepBytes: number) {}

  /**
   * Memory of at least `bytes` (rounded up a step, not past `limit`) for one reader, the caller: a
   * kept one when one is large enough (the smallest such), else new.
   */
  take(bytes: number, limit: number): SharedArrayBuffer {
    if (bytes < KEPT_MIN_BYTES) return new SharedArrayBuffer(bytes);
    const size = Math.max(bytes, Math.min(Math.ceil(bytes / STEP_BYTES) * STEP_BYTES, limit));
    let best = -1;
    for (const [index, kept] of this.#free.entries()) {
      if (kept.byteLength >= size && (best === -1 || kept.byteLength < this.#free[best]!.byteLength)) best = index;
    }
    const memory = best === -1 ? new SharedArrayBuffer(size) : this.#free.splice(best, 1)[0]!;
    this.#readers.set(memory, 1);
    return memory;
  }

  /** One more reader of `memory` (the ingest thread, handed the document). */
  share(memory: SharedArrayBuffer): void {
    const readers = this.#readers.get(memory);
    if (readers !== undefined) this.#readers.set(memory, readers + 1);
  }

  /** One reader is done with `memory`; after the last, it may hold another document. */
  release(memory: SharedArrayBuffer): void {
    const readers = this.#readers.get(memory);
    if (readers === undefined) return;
    if (readers > 1) return void this.#readers.set(memory, readers - 1);
    this.#readers.delete(memory);
    this.#keep(memory);
  }

  /** A reader that will never say it is done (its thread died): the memory is never used again. */
  forget(memory: SharedArrayBuffer): void {
    this.#readers.delete(memory);
  }

  /** Bytes kept for the next documents. */
  get freeBytes(): number {
    return this.#free.reduce((bytes, kept) => bytes + kept.byteLength, 0);
  }

  #keep(memory: SharedArrayBuffer): void {
    if (memory.byteLength > this.keepBytes) return;
    this.#free.push(memory);
    // The oldest go first.
    while (this.freeBytes > this.keepBytes) this.#free.shift();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      this.#free.length = 0;
    }, IDLE_MS).unref();
  }
}
