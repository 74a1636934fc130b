import { entryBytes, zipEntries, ZipError, type ZipEntry } from './zip.js';

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
export function readDocuments(bytes: Uint8Array, name: string, limits: ZipLimits): { documents: Iterable<OsvDocument>; rejected: Rejection[] } {
  const rejected: Rejection[] = [];
  if (!isZip(bytes)) return { documents: jsonDocuments(bytes, name, rejected), rejected };
  return { documents: zipDocuments(bytes, name, jsonEntries(bytes, limits), rejected), rejected };
}

/** The zip's JSON files in name order (of several with one name, the last), within the limits. */
function jsonEntries(bytes: Uint8Array, limits: ZipLimits): ZipEntry[] {
  let directory: ZipEntry[];
  try {
    directory = zipEntries(bytes);
  } catch (error) {
    if (error instanceof ZipError) throw new DocumentsError(`the zip cannot be read: ${error.message}`);
    throw error;
  }
  const byName = new Map<string, ZipEntry>();
  let count = 0;
  let inflated = 0;
  for (const entry of directory) {
    if (entry.name.endsWith('/') || !entry.name.toLowerCase().endsWith('.json')) continue;
    count++;
    inflated += entry.size;
    if (count > limits.maxEntries) throw new DocumentsError(`the zip has more than ${limits.maxEntries} JSON files`);
    if (inflated > limits.maxInflatedBytes) throw new DocumentsError(`the zip inflates to more than ${limits.maxInflatedBytes} bytes`);
    if (entry.method !== 0 && entry.method !== 8) throw new DocumentsError(`the zip cannot be read: unknown compression type ${entry.method}`);
    byName.set(entry.name, entry);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

function* zipDocuments(bytes: Uint8Array, name: string, entries: ZipEntry[], rejected: Rejection[]): Generator<OsvDocument> {
  for (const entry of entries) {
    let content;
    try {
      content = entryBytes(bytes, entry);
    } catch (error) {
      if (!(error instanceof ZipError)) throw error;
      rejected.push({ file: `${name}:${entry.name}`, reason: error.message });
      continue;
    }
    yield* jsonDocuments(content, `${name}:${entry.name}`, rejected);
  }
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
