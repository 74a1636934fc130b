import fs from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import { createGunzip } from 'node:zlib';
import { DocumentsError, type ZipLimits } from './documents.js';

/**
 * What an import reads: bytes already in memory (an API body, a sync source's copy) or a file (the
 * CLI). Either is read in chunks, gunzipped as it goes when it is gzip, so that what an import holds
 * is the item it is reading, never the file.
 */
export type ImportInput = Uint8Array | { path: string };

const CHUNK = 64 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b];
/** Enough of the start to tell the formats apart (a zip's magic, EPSS's first line). */
const HEAD = 200;

export interface OpenedInput {
  /** The first bytes (after gunzip), to tell the format by. */
  head: Buffer;
  /** Every chunk, the head's included; once. */
  chunks(): AsyncIterable<Buffer>;
  /** The whole content in memory, for a zip (whose directory is at its end); once, instead of chunks(). */
  whole(): Promise<Uint8Array>;
}

export async function openInput(input: ImportInput, limits: ZipLimits): Promise<OpenedInput> {
  let source = new Peeked(rawChunks(input));
  const start = await source.head(GZIP_MAGIC.length);
  const gzip = GZIP_MAGIC.every((byte, i) => start[i] === byte);
  if (gzip) source = new Peeked(gunzip(source.rest(), limits.maxInflatedBytes));
  const head = await source.head(HEAD);
  return {
    head,
    chunks: () => source.rest(),
    whole: async () => {
      if (input instanceof Uint8Array && !gzip) return input;
      const parts: Buffer[] = [];
      for await (const chunk of source.rest()) parts.push(chunk);
      return Buffer.concat(parts);
    },
  };
}

function rawChunks(input: ImportInput): AsyncIterable<Buffer> {
  return input instanceof Uint8Array ? slices(input) : fs.createReadStream(input.path, { highWaterMark: CHUNK });
}

async function* slices(bytes: Uint8Array): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.byteLength; at += CHUNK) yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(CHUNK, bytes.byteLength - at));
}

/** Inflates as it is read, refusing more than `max` bytes inflated (a gzip bomb stops there). */
async function* gunzip(chunks: AsyncIterable<Buffer>, max: number): AsyncGenerator<Buffer> {
  const inflated = pipeline(Readable.from(chunks), createGunzip(), () => {});
  let size = 0;
  try {
    for await (const chunk of inflated as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw new DocumentsError(`the gzip inflates to more than ${max} bytes`);
      yield chunk;
    }
  } catch (error) {
    if (String((error as { code?: unknown }).code).startsWith('Z_')) throw new DocumentsError(`the gzip cannot be read: ${(error as Error).message}`);
    throw error;
  } finally {
    inflated.destroy();
  }
}

/** A stream of chunks whose first bytes can be looked at before it is read. */
class Peeked {
  private readonly buffered: Buffer[] = [];
  private size = 0;
  private ended = false;
  private readonly iterator: AsyncIterator<Buffer>;

  constructor(chunks: AsyncIterable<Buffer>) {
    this.iterator = chunks[Symbol.asyncIterator]();
  }

  async head(bytes: number): Promise<Buffer> {
    while (this.size < bytes && !this.ended) {
      const next = await this.iterator.next();
      if (next.done) this.ended = true;
      else {
        this.buffered.push(next.value);
        this.size += next.value.length;
      }
    }
    return Buffer.concat(this.buffered).subarray(0, bytes);
  }

  async* rest(): AsyncGenerator<Buffer> {
    yield* this.buffered.splice(0);
    if (this.ended) return;
    for (let next = await this.iterator.next(); !next.done; next = await this.iterator.next()) yield next.value;
  }
}

/** Text out of UTF-8 chunks, a character split between two chunks kept whole. */
export async function* textOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const last = decoder.decode();
  if (last !== '') yield last;
}

/** The lines of the text, a chunk's worth at a time (without their `\n`). */
export async function* linesOf(text: AsyncIterable<string>): AsyncGenerator<string[]> {
  let partial: string[] = [];
  for await (const chunk of text) {
    const lines: string[] = [];
    let from = 0;
    for (let at = chunk.indexOf('\n'); at !== -1; at = chunk.indexOf('\n', from)) {
      partial.push(chunk.slice(from, at));
      lines.push(partial.join(''));
      partial = [];
      from = at + 1;
    }
    if (from < chunk.length) partial.push(chunk.slice(from));
    if (lines.length > 0) yield lines;
  }
  if (partial.length > 0) yield [partial.join('')];
}

/**
 * Lets the event loop run once this thread has worked for `sliceMs` since it last did: an import
 * reads, parses and judges a million rows on the request thread, which held `/healthz` for 10 s.
 */
export function turns(sliceMs = 10) {
  let since = performance.now();
  return {
    due: () => performance.now() - since >= sliceMs,
    async pause(): Promise<void> {
      await setImmediate();
      since = performance.now();
    },
  };
}
