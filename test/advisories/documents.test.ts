import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DocumentsError, readJson, readZip, type Rejection, type ZipLimits } from '../../src/advisories/documents.js';

const LIMITS: ZipLimits = { maxInflatedBytes: 1 << 20, maxEntries: 100 };
const record = (id: string) => strToU8(JSON.stringify({ id, modified: '2024-01-01T00:00:00Z' }));

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function read(bytes: Uint8Array, limits = LIMITS) {
  const rejected: Rejection[] = [];
  const documents = await readZip(bytes, 'all.zip', limits, (r) => rejected.push(r));
  return { files: (await all(documents)).flat().map((d) => d.file), rejected };
}

/** The JSON arriving in pieces of `size` characters. */
async function readText(text: string, size = 7) {
  async function* pieces() {
    for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
  }
  return (await all(readJson(pieces(), 'all.json'))).flat();
}

/** Where each central directory header starts, and the end record's offset. */
function directory(zip: Uint8Array): { headers: number[]; end: number } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  const headers: number[] = [];
  for (let at = view.getUint32(end + 16, true), i = 0; i < view.getUint16(end + 10, true); i++) {
    headers.push(at);
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return { headers, end };
}

/**
 * The zip as a ZIP64 writer lays it out: every directory header's sizes and offset saturated and given
 * in a ZIP64 extra field, and the entry count and directory's place in a ZIP64 end record (what a zip of
 * more than 65,535 files, OSV's npm all.zip among them, has). fflate writes none, so it is built here.
 */
function toZip64(zip: Uint8Array): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const { headers, end } = directory(zip);
  const start = view.getUint32(end + 16, true);
  const parts: Uint8Array[] = [zip.subarray(0, start)];
  for (const at of headers) {
    const length = 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true);
    const header = new Uint8Array(length + 28 + view.getUint16(at + 32, true));
    header.set(zip.subarray(at, at + length));
    const h = new DataView(header.buffer);
    h.setUint16(at - at + 30, view.getUint16(at + 30, true) + 28, true);
    const extra = new DataView(header.buffer, length, 28);
    extra.setUint16(0, 0x0001, true);
    extra.setUint16(2, 24, true);
    extra.setBigUint64(4, BigInt(view.getUint32(at + 24, true)), true);
    extra.setBigUint64(12, BigInt(view.getUint32(at + 20, true)), true);
    extra.setBigUint64(20, BigInt(view.getUint32(at + 42, true)), true);
    for (const field of [20, 24, 42]) h.setUint32(field, 0xffffffff, true);
    header.set(zip.subarray(at + length, at + length + view.getUint16(at + 32, true)), length + 28);
    parts.push(header);
  }
  const directorySize = parts.slice(1).reduce((sum, p) => sum + p.length, 0);
  const tail = new DataView(new ArrayBuffer(56 + 20 + 22));
  tail.setUint32(0, 0x06064b50, true);
  tail.setBigUint64(4, 44n, true);
  tail.setUint16(12, 45, true);
  tail.setUint16(14, 45, true);
  tail.setBigUint64(24, BigInt(headers.length), true);
  tail.setBigUint64(32, BigInt(headers.length), true);
  tail.setBigUint64(40, BigInt(directorySize), true);
  tail.setBigUint64(48, BigInt(start), true);
  tail.setUint32(56, 0x07064b50, true);
  tail.setBigUint64(64, BigInt(start + directorySize), true);
  tail.setUint32(72, 1, true);
  tail.setUint32(76, 0x06054b50, true);
  for (const field of [84, 86]) tail.setUint16(field, 0xffff, true);
  for (const field of [88, 92]) tail.setUint32(field, 0xffffffff, true);
  parts.push(new Uint8Array(tail.buffer));
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  parts.reduce((offset, p) => (out.set(p, offset), offset + p.length), 0);
  return out;
}

describe('OSV documents out of a zip', () => {
  it('reads its JSON files in name order, the last of several with one name, skipping directories and other files', async () => {
    const zip = zipSync({ 'c.json': record('C'), 'npm/': {}, 'a.json': record('A'), 'README.txt': strToU8('hello'), 'b.JSON': strToU8(JSON.stringify([{ id: 'B1' }, { id: 'B2' }])) });
    expect(await read(zip)).toEqual({ files: ['all.zip:a.json', 'all.zip:b.JSON[0]', 'all.zip:b.JSON[1]', 'all.zip:c.json'], rejected: [] });
    // Two entries named a.json (fflate would not write them, so x.json is renamed): the later one is read.
    const twice = zipSync({ 'a.json': record('first'), 'x.json': record('second') });
    const x = directory(twice).headers[1]!;
    twice.set(strToU8('a'), x + 46);
    twice.set(strToU8('a'), new DataView(twice.buffer).getUint32(x + 42, true) + 30);
    const documents = await readZip(twice, 'all.zip', LIMITS, () => {});
    expect((await all(documents)).flat()).toEqual([{ file: 'all.zip:a.json', record: { id: 'second', modified: '2024-01-01T00:00:00Z' } }]);
  });

  it('reads stored and deflated entries alike', async () => {
    const zip = zipSync({ 'a.json': [record('A'), { level: 0 }], 'b.json': [record('B'), { level: 9 }] });
    expect((await read(zip)).files).toEqual(['all.zip:a.json', 'all.zip:b.json']);
  });

  it('reads a ZIP64 zip: sizes, offsets and the entry count from its ZIP64 fields', async () => {
    const zip = toZip64(zipSync({ 'b.json': record('B'), 'a.json': record('A'), 'c.json': strToU8('{"id": ') }));
    expect(await read(zip)).toEqual({ files: ['all.zip:a.json', 'all.zip:b.json'], rejected: [{ file: 'all.zip:c.json', reason: expect.stringMatching(/^not valid JSON/) }] });
  });

  it('checks the limits from the directory before reading anything', async () => {
    const zip = zipSync({ 'a.json': record('A'), 'b.json': record('B'), 'c.json': record('C') });
    await expect(readZip(zip, 'all.zip', { ...LIMITS, maxEntries: 2 }, () => {})).rejects.toThrow(new DocumentsError('the zip has more than 2 JSON files'));
    await expect(readZip(zip, 'all.zip', { ...LIMITS, maxInflatedBytes: 100 }, () => {})).rejects.toThrow(new DocumentsError('the zip inflates to more than 100 bytes'));
    // A bomb: one small entry declaring a small size, and the limit counts what the directory declares.
    const bomb = zipSync({ 'a.json': strToU8(`"${'x'.repeat(1 << 20)}"`) });
    expect(bomb.length).toBeLessThan(5000);
    await expect(readZip(bomb, 'all.zip', LIMITS, () => {})).rejects.toThrow(/inflates to more than 1048576 bytes/);
  });

  it('refuses a zip of more files than its end record counts (over 65,535 without ZIP64), rather than skip the rest', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 65_540; i++) files[`${i}.json`] = strToU8('{}');
    await expect(readZip(zipSync(files, { level: 0 }), 'all.zip', { maxInflatedBytes: 1 << 20, maxEntries: 100_000 }, () => {}))
      .rejects.toThrow(new DocumentsError('the zip holds more files than its end record counts (a zip of more than 65,535 files needs ZIP64)'));
  });

  it('rejects an entry compressed in a way it cannot read, by name, and reads the others', async () => {
    const zip = zipSync({ 'a.json': record('A'), 'b.json': record('B'), 'c.json': record('C') });
    new DataView(zip.buffer).setUint16(directory(zip).headers[1]! + 10, 12, true);
    expect(await read(zip)).toEqual({ files: ['all.zip:a.json', 'all.zip:c.json'], rejected: [{ file: 'all.zip:b.json', reason: 'cannot be read: compressed by method 12, which is not read' }] });
  });

  it('refuses an entry that inflates past its declared size, and reads the others', async () => {
    const zip = zipSync({ 'a.json': record('A'), 'b.json': record('B'), 'c.json': record('C') });
    const view = new DataView(zip.buffer);
    const b = directory(zip).headers[1]!;
    view.setUint32(b + 24, 10, true);
    view.setUint32(view.getUint32(b + 42, true) + 22, 10, true);
    expect(await read(zip)).toEqual({ files: ['all.zip:a.json', 'all.zip:c.json'], rejected: [{ file: 'all.zip:b.json', reason: 'cannot be read: it inflates to more than the 10 bytes its header declares' }] });
    // Declaring more than it holds is refused too: the size checked against the limits must be the real one.
    const short = zipSync({ 'a.json': record('A') });
    const a = directory(short).headers[0]!;
    const declared = new DataView(short.buffer).getUint32(a + 24, true) + 5;
    new DataView(short.buffer).setUint32(a + 24, declared, true);
    expect(await read(short)).toEqual({ files: [], rejected: [{ file: 'all.zip:a.json', reason: `cannot be read: it holds ${declared - 5} bytes, not the ${declared} its header declares` }] });
  });

  it('inflates each entry when it is reached, rejecting one that cannot be inflated by name', async () => {
    const good = record('A');
    const zip = zipSync({ 'a.json': good, 'b.json': record('B') });
    const { headers } = directory(zip);
    const view = new DataView(zip.buffer);
    const local = view.getUint32(headers[1]! + 42, true);
    // b.json's deflated bytes become a block of the reserved type 3.
    zip.fill(0xff, local + 30 + view.getUint16(local + 26, true), local + 30 + view.getUint16(local + 26, true) + 4);
    const rejected: Rejection[] = [];
    const documents = await readZip(zip, 'all.zip', LIMITS, (r) => rejected.push(r));
    const reading = documents[Symbol.asyncIterator]();
    expect((await reading.next()).value).toEqual([{ file: 'all.zip:a.json', record: JSON.parse(Buffer.from(good).toString()) }]);
    expect(rejected).toEqual([]);
    expect((await reading.next()).done).toBe(true);
    expect(rejected).toEqual([{ file: 'all.zip:b.json', reason: expect.stringMatching(/^cannot be read: /) }]);
  });

  it('never fails otherwise than by DocumentsError or a rejection, however the zip is cut or damaged', async () => {
    const zip = toZip64(zipSync({ 'a.json': [record('A'), { level: 0 }], 'b.json': record('B'), 'c/d.json': record('D') }));
    const outcomes = new Set<string>();
    const attempt = async (bytes: Uint8Array) => {
      try {
        const { files, rejected } = await read(bytes);
        outcomes.add(rejected.length > 0 ? 'rejected' : `read ${files.length}`);
      } catch (error) {
        expect(error).toBeInstanceOf(DocumentsError);
        outcomes.add('refused');
      }
    };
    for (let length = 4; length < zip.length; length++) await attempt(zip.subarray(0, length));
    for (let at = 4; at < zip.length; at++) {
      for (const value of [0x00, 0xff, 0x7f]) {
        const damaged = zip.slice();
        damaged[at] = value;
        await attempt(damaged);
      }
    }
    expect([...outcomes]).toEqual(expect.arrayContaining(['refused', 'rejected', 'read 3']));
  });

  it('reads JSON that is no zip as it arrives: one record, an array of them, or the KEV catalogue; anything else is refused', async () => {
    const files = async (text: string, size?: number) => (await readText(text, size)).map((d) => `${d.kind} ${d.file}`);
    expect(await files('[{"id": "A"}, {"id": "B, ]}"}, 5, "x"]')).toEqual(['osv all.json[0]', 'osv all.json[1]', 'osv all.json[2]', 'osv all.json[3]']);
    expect(await readText(' [ ] ')).toEqual([]);
    expect(await readText('{"id": "A\\"}", "__proto__": {"x": 1}}', 1)).toEqual([{ kind: 'osv', file: 'all.json', record: JSON.parse('{"id": "A\\"}", "__proto__": {"x": 1}}') }]);
    // CISA writes catalogVersion first: its entries are read one at a time; written after them, the catalogue is read whole.
    const catalogue = { title: 'KEV', catalogVersion: '2025.03.14', count: 2, vulnerabilities: [{ cveID: 'CVE-2021-44228' }, { cveID: 'x]"}' }], after: [1] };
    for (const size of [3, Infinity]) expect(await files(JSON.stringify(catalogue), size)).toEqual(['kev all.json:vulnerabilities[0]', 'kev all.json:vulnerabilities[1]']);
    const { catalogVersion, ...rest } = catalogue;
    expect(await files(JSON.stringify({ ...rest, catalogVersion }))).toEqual(['kev all.json:vulnerabilities[0]', 'kev all.json:vulnerabilities[1]']);
    expect(await files(JSON.stringify(rest))).toEqual(['osv all.json']);
    // Reported as a rejected record, an unreadable file answered 200 to an import through the API.
    await expect(readText('{"id": ')).rejects.toThrow(new DocumentsError('not valid JSON: it ends before the JSON is complete'));
    await expect(readText('not a zip')).rejects.toThrow(/^not valid JSON/);
    await expect(readText('[{"id": "A"} {"id": "B"}]')).rejects.toThrow(new DocumentsError('not valid JSON: unexpected "{" at character 13'));
    await expect(readText('[{"id": "A"}, {"id" "B"}]')).rejects.toThrow(/^not valid JSON: .* \(in all\.json\[1\]\)$/);
    await expect(readText('[{"id": "A"}] []')).rejects.toThrow(new DocumentsError('not valid JSON: more follows the JSON value at character 14'));
    await expect(readText('')).rejects.toThrow(new DocumentsError('not valid JSON: it holds no JSON value'));
    await expect(readText('null')).rejects.toThrow(new DocumentsError('holds null, not an OSV record or an array of them'));
    await expect(readText('"GHSA-x"')).rejects.toThrow(new DocumentsError('holds a string, not an OSV record or an array of them'));
    // In a zip, such a file is rejected by name and the others are read.
    expect(await read(zipSync({ 'a.json': strToU8('{"id": "A"}'), 'b.json': strToU8('5') }))).toEqual({
      files: ['all.zip:a.json'], rejected: [{ file: 'all.zip:b.json', reason: 'holds a number, not an OSV record or an array of them' }],
    });
  });
});
