import { inflateRawSync } from 'node:zlib';
import { fromBufferPromise, type Entry, type ZipFile } from 'yauzl';

/**
 * OSV documents out of what an operator hands over: one JSON record, a JSON array of records, or a
 * zip of JSON files (OSV's per-ecosystem `all.zip`). Pure. A file that cannot be read becomes a
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
 * The records, read as they are iterated: a zip's entries (in name order) are inflated and parsed one
 * at a time, so an import holds the records of the batch it is saving rather than the whole archive.
 * What the zip's directory says (readable, the limits) is checked here, before anything is read, and
 * throws DocumentsError; a file that turns out unreadable is added to `rejected` when reached.
 */
export async function readDocuments(bytes: Uint8Array, name: string, limits: ZipLimits): Promise<{ documents: AsyncIterable<OsvDocument>; rejected: Rejection[] }> {
  const rejected: Rejection[] = [];
  // A file alone is read whole here: one that is no JSON is refused, not reported as a record.
  if (!isZip(bytes)) return { documents: asAsync(recordsOf(parseJson(bytes, (reason) => new DocumentsError(reason)), name)), rejected };
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
  return { documents: zipDocuments(zip, buffer, name, entries, rejected), rejected };
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

async function* zipDocuments(zip: ZipFile, buffer: Buffer, name: string, entries: Entry[], rejected: Rejection[]): AsyncGenerator<OsvDocument> {
  try {
    for (const entry of entries) {
      const file = `${name}:${entry.fileName}`;
      let content: Buffer;
      try {
        content = await entryBytes(zip, buffer, entry);
      } catch (error) {
        rejected.push({ file, reason: `cannot be read: ${(error as Error).message}` });
        continue;
      }
      let value: unknown;
      try {
        value = parseJson(content, (reason) => new Error(reason));
      } catch (error) {
        rejected.push({ file, reason: (error as Error).message });
        continue;
      }
      yield* recordsOf(value, file);
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

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

/** A file's JSON, which must hold an OSV record or an array of them (each then judged on its own). */
function parseJson(bytes: Uint8Array, fault: (reason: string) => Error): unknown {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    throw fault(`not valid JSON: ${(error as Error).message}`);
  }
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
