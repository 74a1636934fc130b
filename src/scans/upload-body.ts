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
  /** The document, decompressed. */
  content: Buffer;
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
  const raw = await readLimited(request.body, limit, Number.isSafeInteger(declared) && declared > 0 ? declared : undefined);
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
 * The body, up to `limit` bytes. With its length declared (`declared`, within the limit), each chunk
 * is copied into one buffer as it arrives: joining them at the end copied the whole document at once,
 * holding every other request meanwhile (about 55 ms for 60 MiB).
 */
async function readLimited(stream: Readable, limit: number, declared?: number): Promise<Buffer> {
  if (declared !== undefined) return readDeclared(stream, declared);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.destroy();
      throw tooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

async function readDeclared(stream: Readable, declared: number): Promise<Buffer> {
  const whole = Buffer.allocUnsafeSlow(declared);
  let size = 0;
  for await (const chunk of stream) {
    // Node's HTTP parser ends the body at Content-Length; this only guards the copy.
    if (size + (chunk as Buffer).length > declared) {
      stream.destroy();
      throw badRequest('The upload is longer than its Content-Length.');
    }
    (chunk as Buffer).copy(whole, size);
    size += (chunk as Buffer).length;
  }
  return whole.subarray(0, size);
}

/**
 * The gzip body inflated, on libuv's thread pool, stopping at the limit: a bomb never grows past it.
 * Its pieces are joined in slices (in-slices.ts), as zlib's own gunzip() joined them at once, holding
 * every other request meanwhile (about 55 ms for 60 MiB; the CLI always sends gzip).
 */
async function inflate(raw: Buffer, limit: number): Promise<Buffer> {
  const gunzip = createGunzip();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    gunzip.end(raw);
    for await (const chunk of gunzip) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        gunzip.destroy();
        throw tooLarge(limit, 'decompressed ');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw badRequest(`The upload is not valid gzip: ${(error as Error).message}`);
  }
  return joinInSlices(chunks, size);
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
