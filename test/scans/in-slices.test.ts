import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { joinInSlices, sha256InSlices } from '../../src/scans/in-slices.js';

const MiB = 1024 * 1024;

describe('work on a large document in slices', () => {
  // Not a multiple of the slice, so the last slice is a short one.
  const document = randomBytes(9 * MiB + 12_345);

  it('joins pieces into the document, in order, in memory another thread can share', async () => {
    const pieces = [];
    for (let offset = 0; offset < document.length; offset += 65_536 + 7) pieces.push(document.subarray(offset, offset + 65_536 + 7));
    const joined = await joinInSlices(pieces, document.length);
    expect(joined.equals(document)).toBe(true);
    expect(joined.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(joined.byteOffset).toBe(0);
    expect(joined.buffer.byteLength).toBe(document.length);
  });

  it('hashes the document as one SHA-256 of the whole', async () => {
    expect(await sha256InSlices(document)).toBe(createHash('sha256').update(document).digest('hex'));
    expect(await sha256InSlices(Buffer.alloc(0))).toBe(createHash('sha256').digest('hex'));
  });

  it('lets the event loop answer between slices, where doing it whole would not', async () => {
    const pieces = Array.from({ length: 160 }, (_, i) => document.subarray(i * 65_536, (i + 1) * 65_536));
    for (const work of [sha256InSlices, () => joinInSlices(pieces, 160 * 65_536)]) {
      let turns = 0;
      const ticking = setInterval(() => turns++, 0);
      await work(document);
      clearInterval(ticking);
      expect(turns).toBeGreaterThan(0);
    }
  });
});
