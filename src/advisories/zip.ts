import { inflateRawSync } from 'node:zlib';

/**
 * A zip's entries as its central directory lists them, and one entry's bytes when asked for, so that
 * an archive of 100,000 files is inflated one file at a time. Pure. Written here because fflate, our
 * zip library, either inflates a whole archive at once (unzipSync) or streams it by its local headers
 * in file order (Unzip): that cannot give the entries in name order without holding them all, knows no
 * size before inflating an entry written with a data descriptor (Go's and Java's writers), and finds
 * the end of such an entry by looking for a signature its compressed bytes may contain. ZIP64 (OSV's
 * all.zip for the large ecosystems) is read; archives split over several disks are not.
 */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  /** What the central directory declares the entry inflates to. */
  size: number;
  localHeader: number;
}

export class ZipError extends Error {
  override readonly name = 'ZipError';
}

const END = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** A 32-bit field holding this says the value is in the ZIP64 extra field. */
const IN_ZIP64 = 0xffffffff;

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Every entry, in central directory order; throws ZipError when the directory cannot be read. */
export function zipEntries(bytes: Uint8Array): ZipEntry[] {
  const zip = bufferOf(bytes);
  const within = (offset: number, length: number) => {
    if (offset < 0 || offset + length > zip.length) throw new ZipError('a header points past the end');
  };
  // The end record is the last 22 bytes, unless a comment of up to 65,535 bytes follows it.
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END) end = end > zip.length - 22 - 0xffff ? end - 1 : -1;
  if (end < 0) throw new ZipError('no end of central directory record');
  let count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  if (end >= 20 && zip.readUInt32LE(end - 20) === ZIP64_LOCATOR) {
    const end64 = Number(zip.readBigUInt64LE(end - 12));
    within(end64, 56);
    if (zip.readUInt32LE(end64) !== ZIP64_END) throw new ZipError('the ZIP64 locator points to no ZIP64 end record');
    count = Number(zip.readBigUInt64LE(end64 + 32));
    offset = Number(zip.readBigUInt64LE(end64 + 48));
  }
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    within(offset, 46);
    if (zip.readUInt32LE(offset) !== CENTRAL) throw new ZipError(`no central directory header for entry ${i + 1} of ${count}`);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const headerLength = 46 + nameLength + extraLength + zip.readUInt16LE(offset + 32);
    within(offset, headerLength);
    const utf8 = (zip.readUInt16LE(offset + 8) & 0x800) !== 0;
    const entry: ZipEntry = {
      name: zip.toString(utf8 ? 'utf8' : 'latin1', offset + 46, offset + 46 + nameLength),
      method: zip.readUInt16LE(offset + 10),
      compressedSize: zip.readUInt32LE(offset + 20),
      size: zip.readUInt32LE(offset + 24),
      localHeader: zip.readUInt32LE(offset + 42),
    };
    if (entry.size === IN_ZIP64 || entry.compressedSize === IN_ZIP64 || entry.localHeader === IN_ZIP64) {
      readZip64Extra(zip.subarray(offset + 46 + nameLength, offset + 46 + nameLength + extraLength), entry);
    }
    entries.push(entry);
    offset += headerLength;
  }
  return entries;
}

/** The ZIP64 extra field holds, in this order, only the values whose 32-bit fields are saturated. */
function readZip64Extra(extra: Buffer, entry: ZipEntry): void {
  for (let field = 0; field + 4 <= extra.length; field += 4 + extra.readUInt16LE(field + 2)) {
    if (extra.readUInt16LE(field) !== 0x0001) continue;
    const values = extra.subarray(field + 4, field + 4 + extra.readUInt16LE(field + 2));
    let read = 0;
    const next = () => {
      if (read + 8 > values.length) throw new ZipError(`the ZIP64 field of ${entry.name} is too short`);
      read += 8;
      return Number(values.readBigUInt64LE(read - 8));
    };
    if (entry.size === IN_ZIP64) entry.size = next();
    if (entry.compressedSize === IN_ZIP64) entry.compressedSize = next();
    if (entry.localHeader === IN_ZIP64) entry.localHeader = next();
    return;
  }
  throw new ZipError(`${entry.name} has no ZIP64 field for its sizes`);
}

/**
 * The entry's inflated bytes, never more than its declared size: an entry that would inflate past it
 * is refused (ZipError), as are bytes that are not where its header says or do not inflate.
 */
export function entryBytes(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const zip = bufferOf(bytes);
  if (entry.localHeader + 30 > zip.length || zip.readUInt32LE(entry.localHeader) !== LOCAL) throw new ZipError('no local header where the central directory points');
  const start = entry.localHeader + 30 + zip.readUInt16LE(entry.localHeader + 26) + zip.readUInt16LE(entry.localHeader + 28);
  if (start + entry.compressedSize > zip.length) throw new ZipError('data runs past the end of the zip');
  const data = zip.subarray(start, start + entry.compressedSize);
  const tooLarge = () => new ZipError(`inflates to more than the ${entry.size} bytes its header declares`);
  if (entry.method === 0) {
    if (data.length > entry.size) throw tooLarge();
    return data;
  }
  let inflated: Buffer;
  try {
    // zlib stops at maxOutputLength (at least 1) instead of growing its buffer; reaching past it is the refusal.
    inflated = inflateRawSync(data, { maxOutputLength: Math.max(entry.size, 1) });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new ZipError(`cannot be inflated: ${(error as Error).message}`);
  }
  if (inflated.length > entry.size) throw tooLarge();
  return inflated;
}
