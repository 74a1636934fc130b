import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { badRequest, HttpProblem } from '../problem.js';
import type {} from '@fastify/multipart';
import { joinInSlices } from './in-slices.js';

const GZIP_MAGIC = [0x1f, 0x8b];

export interface UploadContext {
  format?: string;
  category?: string;
  commit_sha?: string;
  ref?: string;
  base_ref?: string;
}

export interface ReceivedUpload {
  /** The document, decompressed, in memory the ingest thread can share (see joinInSlices). */
  content: Buffer<SharedArrayBuffer>;
  /** The bytes as received when they were gzip (a SARIF is a fourteenth of its size), else null. */
  gzip: Buffer | null;
  contentType: string | undefined;
  /** Context sent as multipart fields (query parameters are read by the route). */
  fields: UploadContext;
}

const CONTEXT_FIELDS = new Set(['format', 'category', 'commit_sha', 'ref', 'base_ref']);

/**
 * Reads the upload, the file itself or the `file` part of a multipart form, gzip or not. The limit
 * holds for the bytes received and, separately, for the inflated size: a gzip bomb stops at the
 * limit instead of filling memory.
 */
export async function receiveUpload(request: FastifyRequest, limit: number): Promise<ReceivedUpload> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (request.isMultipart()) return receiveMultipart(request, limit);
  // Fastify calls no body parser for a request without a body (no Content-Type, Content-Length 0).
  if (!isStream(request.body)) throw badRequest('The upload is empty; send the document as the request body.');
  const raw = await readLimited(request.body, limit);
  const gzipped = /\bgzip\b/i.test(String(request.headers['content-encoding'] ?? '')) || isGzip(raw);
  return { content: gzipped ? await inflate(raw, limit) : raw, gzip: gzipped ? raw : null, contentType: request.headers['content-type'], fields: {} };
}

async function receiveMultipart(request: FastifyRequest, limit: number): Promise<ReceivedUpload> {
  try {
    return await readParts(request, limit);
  } catch (error) {
    // The multipart parser's own errors (no boundary, truncated body) carry no HTTP status.
    if (error instanceof HttpProblem || (error as { statusCode?: number }).statusCode) throw error;
    throw badRequest(`The multipart body could not be read: ${(error as Error).message}`);
  }
}

async function readParts(request: FastifyRequest, limit: number): Promise<ReceivedUpload> {
  const fields: UploadContext = {};
  let received: ReceivedUpload | null = null;
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      if (CONTEXT_FIELDS.has(part.fieldname) && typeof part.value === 'string') {
        fields[part.fieldname as keyof UploadContext] = part.value;
      }
    } else if (part.fieldname === 'file' && received === null) {
      const raw = await readLimited(part.file, limit);
      const gzipped = isGzip(raw);
      received = { content: gzipped ? await inflate(raw, limit) : raw, gzip: gzipped ? raw : null, contentType: gzipped ? undefined : part.mimetype, fields };
    } else {
      part.file.resume();
    }
  }
  if (!received) throw badRequest('The multipart upload has no "file" part.');
  return received;
}

function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';
}

/**
 * Everything `source` gives, up to `limit` bytes (past it, `tooLargeError` and the source is
 * destroyed), joined in slices (in-slices.ts): joining a 60 MiB document at once held every other
 * request for about 55 ms.
 */
async function readAll(source: Readable, limit: number, tooLargeError: () => HttpProblem): Promise<Buffer<SharedArrayBuffer>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      source.destroy();
      throw tooLargeError();
    }
    chunks.push(chunk as Buffer);
  }
  return joinInSlices(chunks, size);
}

function readLimited(stream: Readable, limit: number): Promise<Buffer<SharedArrayBuffer>> {
  return readAll(stream, limit, () => tooLarge(limit));
}

/**
 * The gzip body inflated, on libuv's thread pool, stopping at the limit: a bomb never grows past it.
 * A stream, not zlib's gunzip(), which joins the pieces at once (the CLI always sends gzip).
 */
async function inflate(raw: Buffer, limit: number): Promise<Buffer<SharedArrayBuffer>> {
  const gunzip = createGunzip();
  try {
    return await readAll(gunzip.end(raw), limit, () => tooLarge(limit, 'decompressed '));
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw badRequest(`The upload is not valid gzip: ${(error as Error).message}`);
  }
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
