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
  if (!isZip(bytes)) return { documents: asAsync(jsonDocuments(bytes, name, rejected)), rejected };
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zip: ZipFile;
  try {
    // yauzl reads the central directory (ZIP64 included) and opens one entry at a time, refusing one
    // whose inflated size differs from what the directory declares (validateEntrySizes).
    zip = await fromBufferPromise(buffer, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (error) {
    throw new DocumentsError(`the zip cannot be read: ${(error as Error).message}`);
  }
  let entries: Entry[];
  try {
    entries = await jsonEntries(zip, limits);
  } catch (error) {
    zip.close();
    throw error;
  }
  return { documents: zipDocuments(zip, name, entries, rejected), rejected };
}

/** The zip's JSON files in name order (of several with one name, the last), within the limits. */
async function jsonEntries(zip: ZipFile, limits: ZipLimits): Promise<Entry[]> {
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
  return [...byName.values()].sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
}

async function* zipDocuments(zip: ZipFile, name: string, entries: Entry[], rejected: Rejection[]): AsyncGenerator<OsvDocument> {
  try {
    for (const entry of entries) {
      const file = `${name}:${entry.fileName}`;
      let content: Buffer;
      try {
        content = await entryBytes(zip, entry);
      } catch (error) {
        rejected.push({ file, reason: `cannot be read: ${(error as Error).message}` });
        continue;
      }
      yield* jsonDocuments(content, file, rejected);
    }
  } finally {
    zip.close();
  }
}

async function entryBytes(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

function* jsonDocuments(bytes: Uint8Array, file: string, rejected: Rejection[]): Generator<OsvDocument> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    rejected.push({ file, reason: `not valid JSON: ${(error as Error).message}` });
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, record] of value.entries()) yield { file: `${file}[${i}]`, record };
  } else {
    yield { file, record: value };
  }
}
