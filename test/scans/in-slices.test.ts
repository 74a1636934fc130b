import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { copyInSlices, joinInSlices, sha256InSlices } from '../../src/scans/in-slices.js';

const MiB = 1024 * 1024;

describe('work on a large document in slices', () => {
  // Not a multiple of the slice, so the last slice is a short one.
  const document = randomBytes(9 * MiB + 12_345);

  it('copies the document exactly, into memory of its own that can be moved to another thread', async () => {
    const copy = await copyInSlices(document);
    expect(Buffer.from(copy.buffer).equals(document)).toBe(true);
    expect(copy.byteOffset).toBe(0);
    expect(copy.buffer.byteLength).toBe(document.length);
    expect(copy.buffer).not.toBe(document.buffer);
  });

  it('joins pieces into the document, in order', async () => {
    const pieces = [];
    for (let offset = 0; offset < document.length; offset += 65_536 + 7) pieces.push(document.subarray(offset, offset + 65_536 + 7));
    expect((await joinInSlices(pieces, document.length)).equals(document)).toBe(true);
  });

  it('hashes the document as one SHA-256 of the whole', async () => {
    expect(await sha256InSlices(document)).toBe(createHash('sha256').update(document).digest('hex'));
    expect(await sha256InSlices(Buffer.alloc(0))).toBe(createHash('sha256').digest('hex'));
  });

  it('lets the event loop answer between slices, where doing it whole would not', async () => {
    const pieces = Array.from({ length: 160 }, (_, i) => document.subarray(i * 65_536, (i + 1) * 65_536));
    for (const work of [copyInSlices, sha256InSlices, () => joinInSlices(pieces, 160 * 65_536)]) {
      let turns = 0;
      const ticking = setInterval(() => turns++, 0);
      await work(document);
      clearInterval(ticking);
      expect(turns).toBeGreaterThan(0);
    }
  });
});
