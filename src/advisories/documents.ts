import { inflateRawSync } from 'node:zlib';
import { fromBufferPromise, type Entry, type ZipFile } from 'yauzl';
import { JsonSplitError, JsonSplitter, type JsonPiece } from './json-split.js';

/**
 * OSV documents out of what an operator hands over: one JSON record, a JSON array of records, or a
 * zip of JSON files (OSV's per-ecosystem `all.zip`); and the CISA KEV catalogue, a JSON object
 * whose `vulnerabilities` are its entries. Pure. A file of a zip that cannot be read becomes a
 * rejection with its name and reason; it never stops the others.
 */
export interface OsvDocument {
  file: string;
  record: unknown;
}

export interface Rejection {
  file: string;
  reason: string;
}

/** How many rejections a report lists; the rest are only counted. */
export const REJECTIONS_LISTED = 100;

/**
 * The rejections of an import: the first REJECTIONS_LISTED, and how many there were. A million bad
 * rows listed one by one made a 54 MB report, and thirteen million exhausted the process's memory.
 */
export class Rejections {
  readonly listed: Rejection[] = [];
  total = 0;

  add(rejection: Rejection): void {
    this.total++;
    if (this.listed.length < REJECTIONS_LISTED) this.listed.push(rejection);
  }

  /** Another import's, after these. */
  addAll(other: { listed: Rejection[]; total: number }): void {
    this.listed.push(...other.listed.slice(0, REJECTIONS_LISTED - this.listed.length));
    this.total += other.total;
  }
}

export interface ZipLimits {
  /** Inflated bytes of all entries together. */
  maxInflatedBytes: number;
  maxEntries: number;
}

export class DocumentsError extends Error {
  override readonly name = 'DocumentsError';
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const DEFLATE = 8;

export function isZip(bytes: Uint8Array): boolean {
  return ZIP_MAGIC.every((byte, i) => bytes[i] === byte);
}

/**
 * A zip's records, read as they are iterated: its entries (in name order) are inflated and parsed one
 * at a time, so an import holds the records of the batch it is saving rather than the whole archive.
 * What the zip's directory says (readable, the limits) is checked here, before anything is read, and
 * throws DocumentsError; a file that turns out unreadable is handed to `reject` when reached.
 */
export async function readZip(bytes: Uint8Array, name: string, limits: ZipLimits, reject: (rejection: Rejection) => void): Promise<AsyncIterable<OsvDocument[]>> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zip: ZipFile;
  try {
    // yauzl reads the central directory (ZIP64 included) and each entry's local header.
    zip = await fromBufferPromise(buffer, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new DocumentsError(`the zip cannot be read: ${(error as Error).message}`);
  }
  let entries: Entry[];
  try {
    entries = await jsonEntries(zip, buffer, limits);
  } catch (error) {
    zip.close();
    throw error;
  }
  return zipDocuments(zip, buffer, name, entries, reject);
}

/** The zip's JSON files in name order (of several with one name, the last), within the limits. */
async function jsonEntries(zip: ZipFile, buffer: Buffer, limits: ZipLimits): Promise<Entry[]> {
  const byName = new Map<string, Entry>();
  let count = 0;
  let inflated = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      const file = entry.fileName;
      if (file.endsWith('/') || !file.toLowerCase().endsWith('.json')) continue;
      count++;
      inflated += entry.uncompressedSize;
      if (count > limits.maxEntries) throw new DocumentsError(`the zip has more than ${limits.maxEntries} JSON files`);
      if (inflated > limits.maxInflatedBytes) throw new DocumentsError(`the zip inflates to more than ${limits.maxInflatedBytes} bytes`);
      byName.set(file, entry);
    }
  } catch (error) {
    if (error instanceof DocumentsError) throw error;
    throw new DocumentsError(`the zip cannot be read: ${(error as Error).message}`);
  }
  if (listsMore(zip, buffer)) throw new DocumentsError('the zip holds more files than its end record counts (a zip of more than 65,535 files needs ZIP64)');
  return [...byName.values()].sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
}

const CENTRAL_HEADER = 0x02014b50;

/**
 * A writer without ZIP64 (fflate is one) counts entries in 16 bits, so a zip of 65,540 files says
 * 4, and yauzl reads 4: the rest would be skipped without a word. After the counted entries, yauzl's
 * cursor stands where the directory should end; another directory header there means it does not.
 */
function listsMore(zip: ZipFile, buffer: Buffer): boolean {
  const end = (zip as unknown as { readEntryCursor: number }).readEntryCursor;
  return end + 4 <= buffer.length && buffer.readUInt32LE(end) === CENTRAL_HEADER;
}

async function* zipDocuments(zip: ZipFile, buffer: Buffer, name: string, entries: Entry[], reject: (rejection: Rejection) => void): AsyncGenerator<OsvDocument[]> {
  try {
    for (const entry of entries) {
      const file = `${name}:${entry.fileName}`;
      let content: Buffer;
      try {
        content = await entryBytes(zip, buffer, entry);
      } catch (error) {
        reject({ file, reason: `cannot be read: ${(error as Error).message}` });
        continue;
      }
      let value: unknown;
      try {
        value = parseJson(content, (reason) => new Error(reason));
      } catch (error) {
        reject({ file, reason: (error as Error).message });
        continue;
      }
      yield [...recordsOf(value, file)];
    }
  } finally {
    zip.close();
  }
}

/**
 * One entry's bytes, inflated in one call: yauzl's read streams cost 0.1 ms an entry (a zlib stream
 * each), eleven seconds for OSV's 100,000 files. yauzl still finds the data (its local header);
 * the declared size bounds the inflating, and any other size is refused.
 */
async function entryBytes(zip: ZipFile, buffer: Buffer, entry: Entry): Promise<Buffer> {
  if (!entry.canDecodeFileData()) throw new Error(`compressed by method ${entry.compressionMethod}${entry.isEncrypted() ? ', encrypted' : ''}, which is not read`);
  const { fileDataStart } = await zip.readLocalFileHeaderPromise(entry, { minimal: true });
  if (fileDataStart + entry.compressedSize > buffer.length) throw new Error('its data runs past the end of the zip');
  const data = buffer.subarray(fileDataStart, fileDataStart + entry.compressedSize);
  let content = data;
  if (entry.compressionMethod === DEFLATE) {
    try {
      // zlib stops at maxOutputLength (at least 1) instead of growing its buffer.
      content = inflateRawSync(data, { maxOutputLength: Math.max(entry.uncompressedSize, 1) });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new Error(`it inflates to more than the ${entry.uncompressedSize} bytes its header declares`);
      throw new Error(`it cannot be inflated: ${(error as Error).message}`);
    }
  }
  if (content.length !== entry.uncompressedSize) throw new Error(`it holds ${content.length} bytes, not the ${entry.uncompressedSize} its header declares`);
  return content;
}

/** A file's JSON, which must hold an OSV record or an array of them (each then judged on its own). */
function parseJson(bytes: Uint8Array, fault: (reason: string) => Error): unknown {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    throw fault(`not valid JSON: ${(error as Error).message}`);
  }
  return recordOrArray(value, fault);
}

function recordOrArray(value: unknown, fault: (reason: string) => Error): unknown {
  if (value === null || typeof value !== 'object') throw fault(`holds ${value === null ? 'null' : `a ${typeof value}`}, not an OSV record or an array of them`);
  return value;
}

function* recordsOf(value: unknown, file: string): Generator<OsvDocument> {
  if (Array.isArray(value)) {
    for (const [i, record] of value.entries()) yield { file: `${file}[${i}]`, record };
  } else {
    yield { file, record: value };
  }
}

/** An item of a JSON file: an OSV record, or an entry of the KEV catalogue. */
export interface JsonDocument extends OsvDocument {
  kind: 'osv' | 'kev';
}

/**
 * The items of a JSON file arriving as text, as they complete: each record of an array, or the one
 * record a top-level object is, or each entry of a KEV catalogue's `vulnerabilities` (an object
 * with `catalogVersion` and that array). Only one item is held at a time, so a catalogue or an array
 * of any length costs the memory of its largest item: when `catalogVersion` comes first, as CISA
 * writes it; after `vulnerabilities`, the object is read whole to tell what it is. JSON that is not
 * valid, where it is found, throws DocumentsError (before any item: nothing was imported).
 */
export async function* readJson(text: AsyncIterable<string>, name: string): AsyncGenerator<JsonDocument[]> {
  const splitter = new JsonSplitter((key, earlier) => key === 'vulnerabilities' && earlier.has('catalogVersion'));
  let streamed = false;
  // The top-level object's members, kept in a Map so that a "__proto__" member stays a member.
  const members = new Map<string, unknown>();
  const fault = (reason: string) => new DocumentsError(reason);
  const parse = (piece: JsonPiece, file: string): unknown => {
    try {
      return JSON.parse(piece.text);
    } catch (error) {
      throw new DocumentsError(`not valid JSON: ${(error as Error).message}${file === name ? '' : ` (in ${file})`}`);
    }
  };
  const documents = (pieces: JsonPiece[]): JsonDocument[] => {
    const out: JsonDocument[] = [];
    for (const piece of pieces) {
      if (piece.kind === 'item' && piece.member !== undefined) {
        streamed = true;
        const file = `${name}:${piece.member}[${piece.index}]`;
        out.push({ kind: 'kev', file, record: parse(piece, file) });
      } else if (piece.kind === 'item') {
        const file = `${name}[${piece.index}]`;
        out.push({ kind: 'osv', file, record: parse(piece, file) });
      } else if (piece.kind === 'member') {
        members.set(piece.key, parse(piece, name));
      } else {
        recordOrArray(parse(piece, name), fault);
      }
    }
    return out;
  };
  const split = (take: () => JsonPiece[]): JsonPiece[] => {
    try {
      return take();
    } catch (error) {
      if (error instanceof JsonSplitError) throw new DocumentsError(`not valid JSON: ${error.message}`);
      throw error;
    }
  };
  for await (const chunk of text) {
    const out = documents(split(() => splitter.push(chunk)));
    if (out.length > 0) yield out;
  }
  const out = documents(split(() => splitter.end()));
  if (out.length > 0) yield out;
  if (splitter.root !== 'object' || streamed) return;
  const record = Object.fromEntries(members);
  if ('catalogVersion' in record && Array.isArray(record.vulnerabilities)) {
    yield (record.vulnerabilities as unknown[]).map((entry, index) => ({ kind: 'kev', file: `${name}:vulnerabilities[${index}]`, record: entry }));
  } else {
    yield [{ kind: 'osv', file: name, record }];
  }
}
