import { unzipSync } from 'fflate';

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

export function readDocuments(bytes: Uint8Array, name: string, limits: ZipLimits): { documents: OsvDocument[]; rejected: Rejection[] } {
  const documents: OsvDocument[] = [];
  const rejected: Rejection[] = [];
  if (!isZip(bytes)) {
    readJson(bytes, name, documents, rejected);
    return { documents, rejected };
  }
  let entries = 0;
  let inflated = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      // Sizes come from the zip's own headers, checked before anything is inflated; fflate then
      // refuses an entry that inflates to more than its header declared.
      filter: (entry) => {
        if (entry.name.endsWith('/') || !entry.name.toLowerCase().endsWith('.json')) return false;
        entries++;
        inflated += entry.originalSize;
        if (entries > limits.maxEntries) throw new DocumentsError(`the zip has more than ${limits.maxEntries} JSON files`);
        if (inflated > limits.maxInflatedBytes) throw new DocumentsError(`the zip inflates to more than ${limits.maxInflatedBytes} bytes`);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof DocumentsError) throw error;
    throw new DocumentsError(`the zip cannot be read: ${(error as Error).message}`);
  }
  for (const [entry, content] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    readJson(content, `${name}:${entry}`, documents, rejected);
  }
  return { documents, rejected };
}

function readJson(bytes: Uint8Array, file: string, documents: OsvDocument[], rejected: Rejection[]): void {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (error) {
    rejected.push({ file, reason: `not valid JSON: ${(error as Error).message}` });
    return;
  }
  if (Array.isArray(value)) value.forEach((record, i) => documents.push({ file: `${file}[${i}]`, record }));
  else documents.push({ file, record: value });
}
