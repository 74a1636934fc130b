import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { badRequest, HttpProblem } from '../problem.js';
import type {} from '@fastify/multipart';
import { DocumentBuffer } from './document-buffer.js';
import type { DocumentMemory } from './document-memory.js';

const GZIP_MAGIC = [0x1f, 0x8b];

export interface UploadContext {
  format?: string;
  category?: string;
  commit_sha?: string;
  head_sha?: string;
  base_sha?: string;
  ref?: string;
  base_ref?: string;
}

export interface ReceivedUpload {
  /** The document, decompressed, in memory the ingest thread can share (see DocumentBuffer). */
  content: Buffer<SharedArrayBuffer>;
  /** The SHA-256 of `content`, in hex. */
  sha256: string;
  /** The bytes as received when they were gzip (a SARIF is a fourteenth of its size), else null. */
  gzip: Buffer | null;
  contentType: string | undefined;
  /** Context sent as multipart fields (query parameters are read by the route). */
  fields: UploadContext;
  /** Gives `content` and `gzip` back to the DocumentMemory they came from, once this thread is done with them. */
  release(): void;
}

const CONTEXT_FIELDS = new Set(['format', 'category', 'commit_sha', 'head_sha', 'base_sha', 'ref', 'base_ref']);

/**
 * Reads the upload, the file itself or the `file` part of a multipart form, gzip or not. The limit
 * holds for the bytes received and, separately, for the inflated size: a gzip bomb stops at the
 * limit instead of filling memory. A large document's memory comes from `memory` when given; the
 * caller calls `release()` once it has stored the upload (a refused one gives it back here).
 */
export async function receiveUpload(request: FastifyRequest, limit: number, memory?: DocumentMemory): Promise<ReceivedUpload> {
  const stated = Number(request.headers['content-length']);
  const declared = Number.isFinite(stated) ? stated : undefined;
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity' && (request.isMultipart() || !GZIP_ENCODING.test(encoding))) {
    throw new HttpProblem(415, request.isMultipart()
      ? `A multipart body is read as sent, without Content-Encoding (not ${encoding}); gzip the file part itself instead.`
      : `Content-Encoding ${encoding} is not read: send the document as it is, or gzip it.`);
  }
  const reader = new DocumentReader(limit, memory);
  try {
    // A multipart body's file part is a little smaller than the body: its memory is sized from it.
    if (request.isMultipart()) return await receiveMultipart(request, reader, declared);
    // Fastify calls no body parser for a request without a body (no Content-Type, Content-Length 0).
    if (!isStream(request.body)) throw badRequest('The upload is empty; send the document as the request body.');
    const raw = await reader.read(request.body, declared);
    const gzipped = encoding !== undefined && GZIP_ENCODING.test(encoding) || isGzip(raw.content);
    return reader.received(gzipped ? await reader.inflate(raw.content) : raw, gzipped ? raw.content : null, request.headers['content-type'], {});
  } catch (error) {
    reader.release();
    throw error;
  }
}

/** gzip, or its old name x-gzip (RFC 9110 8.4.1.3); the only Content-Encoding an upload may have. */
const GZIP_ENCODING = /^(?:x-)?gzip$/;

const PART_LIMITS = new Set(['FST_FILES_LIMIT', 'FST_FIELDS_LIMIT', 'FST_PARTS_LIMIT']);

async function receiveMultipart(request: FastifyRequest, reader: DocumentReader, declared: number | undefined): Promise<ReceivedUpload> {
  try {
    return await readParts(request, reader, declared);
  } catch (error) {
    // @fastify/multipart answers too many parts with 413, which says the body was too large.
    if (PART_LIMITS.has((error as { code?: string }).code ?? '')) {
      throw badRequest('The multipart body has more parts than this endpoint takes: one "file" part (and, for a scan upload, its context fields once each).');
    }
    // The multipart parser's own errors (no boundary, truncated body) carry no HTTP status.
    if (error instanceof HttpProblem || (error as { statusCode?: number }).statusCode) throw error;
    throw badRequest(`The multipart body could not be read: ${(error as Error).message}`);
  }
}

async function readParts(request: FastifyRequest, reader: DocumentReader, declared: number | undefined): Promise<ReceivedUpload> {
  const fields: UploadContext = {};
  let received: ReceivedUpload | null = null;
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      if (CONTEXT_FIELDS.has(part.fieldname) && typeof part.value === 'string') {
        fields[part.fieldname as keyof UploadContext] = part.value;
      }
    } else if (part.fieldname === 'file' && received === null) {
      const raw = await reader.read(part.file, declared);
      const gzipped = isGzip(raw.content);
      received = reader.received(gzipped ? await reader.inflate(raw.content) : raw, gzipped ? raw.content : null, gzipped ? undefined : part.mimetype, fields);
    } else {
      part.file.resume();
    }
  }
  if (!received) throw badRequest('The multipart upload has no "file" part.');
  return received;
}

type Read = ReturnType<DocumentBuffer['finish']>;

/** Reads an upload's documents (the bytes sent, and inflated when gzip) and gives their memory back together. */
class DocumentReader {
  readonly #read: Buffer<SharedArrayBuffer>[] = [];

  constructor(private readonly limit: number, private readonly memory: DocumentMemory | undefined) {}

  /** The raw bytes `source` gives, up to the limit. */
  read(source: Readable, expected: number | undefined): Promise<Read> {
    return this.#readAll(source, expected, () => tooLarge(this.limit));
  }

  /**
   * The gzip body inflated, on libuv's thread pool, stopping at the limit: a bomb never grows past it.
   * A stream, not zlib's gunzip(), which joins the pieces at once (the CLI always sends gzip).
   */
  async inflate(raw: Buffer): Promise<Read> {
    const gunzip = createGunzip();
    try {
      return await this.#readAll(gunzip.end(raw), statedSize(raw), () => tooLarge(this.limit, 'decompressed '));
    } catch (error) {
      if (error instanceof HttpProblem) throw error;
      throw badRequest(`The upload is not valid gzip: ${(error as Error).message}`);
    }
  }

  received(document: Read, gzip: Buffer | null, contentType: string | undefined, fields: UploadContext): ReceivedUpload {
    return { ...document, gzip, contentType, fields, release: () => this.release() };
  }

  release(): void {
    for (const content of this.#read.splice(0)) this.memory?.release(content.buffer);
  }

  /**
   * Everything `source` gives, up to the limit (past it, `tooLargeError` and the source is
   * destroyed), copied and hashed as it comes (DocumentBuffer), into memory of the `expected` size
   * when the sender stated one.
   */
  async #readAll(source: Readable, expected: number | undefined, tooLargeError: () => HttpProblem): Promise<Read> {
    const document = new DocumentBuffer(expected, this.limit, this.memory);
    try {
      for await (const chunk of source) {
        if (document.size + (chunk as Buffer).length > this.limit) {
          source.destroy();
          throw tooLargeError();
        }
        document.append(chunk as Buffer);
      }
    } catch (error) {
      document.discard();
      throw error;
    }
    const read = document.finish();
    this.#read.push(read.content);
    return read;
  }
}

function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';
}

/**
 * The inflated size a gzip states in its last four bytes (modulo 2^32, of its last member only: a
 * hint, which DocumentBuffer corrects by growing), and never more than deflate can inflate the bytes
 * sent to (1,032 times), so a forged trailer reserves no more than the real document could fill.
 */
function statedSize(raw: Buffer): number | undefined {
  return raw.length >= 18 ? Math.min(raw.readUInt32LE(raw.length - 4), raw.length * 1032) : undefined;
}

function isGzip(raw: Buffer): boolean {
  return raw.length >= 2 && raw[0] === GZIP_MAGIC[0] && raw[1] === GZIP_MAGIC[1];
}

function tooLarge(limit: number, what = ''): HttpProblem {
  return new HttpProblem(413, `The ${what}upload is larger than the limit of ${limit} bytes (${formatBytes(limit)}).`);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MiB` : `${bytes} bytes`;
}
