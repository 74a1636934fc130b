import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { copyInSlices, sha256InSlices } from '../../src/scans/in-slices.js';

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

  it('hashes the document as one SHA-256 of the whole', async () => {
    expect(await sha256InSlices(document)).toBe(createHash('sha256').update(document).digest('hex'));
    expect(await sha256InSlices(Buffer.alloc(0))).toBe(createHash('sha256').digest('hex'));
  });

  it('lets the event loop answer between slices, where doing it whole would not', async () => {
    for (const work of [copyInSlices, sha256InSlices]) {
      let turns = 0;
      const ticking = setInterval(() => turns++, 0);
      await work(document);
      clearInterval(ticking);
      expect(turns).toBeGreaterThan(0);
    }
  });
});
