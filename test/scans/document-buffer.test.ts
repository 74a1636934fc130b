import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DocumentBuffer } from '../../src/bodies/document-buffer.js';
import { DocumentMemory } from '../../src/bodies/document-memory.js';

const MiB = 1024 * 1024;

/** `document` appended in chunks of `chunk` bytes to a buffer told to expect `expected`. */
function receive(document: Buffer, chunk: number, expected: number | undefined, limit = 64 * MiB) {
  const buffer = new DocumentBuffer(expected, limit);
  for (let offset = 0; offset < document.length; offset += chunk) buffer.append(document.subarray(offset, offset + chunk));
  expect(buffer.size).toBe(document.length);
  return buffer.finish();
}

describe('a document received into shared memory', () => {
  // Not a multiple of any chunk size below, so the last chunk is a short one.
  const document = randomBytes(3 * MiB + 12_345);
  const sha256 = createHash('sha256').update(document).digest('hex');

  it.each([
    ['its stated size', document.length],
    ['no stated size', undefined],
    ['a stated size too small (a gzip of several members states its last one)', 1000],
    ['a stated size too large', document.length + 5000],
    ['a stated size of zero', 0],
  ])('holds exactly the bytes sent, in order, and their SHA-256, given %s', (_, expected) => {
    for (const chunk of [65_536, 16_384 + 3]) {
      const { content, sha256: hashed } = receive(document, chunk, expected);
      expect(content.length).toBe(document.length);
      expect(content.equals(document)).toBe(true);
      expect(hashed).toBe(sha256);
      expect(content.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
  });

  it('grows a byte at a time', () => {
    const small = document.subarray(0, 200_000);
    const { content, sha256: hashed } = receive(small, 1, undefined);
    expect(content.equals(small)).toBe(true);
    expect(hashed).toBe(createHash('sha256').update(small).digest('hex'));
  });

  it('holds an empty document', () => {
    const { content, sha256: hashed } = new DocumentBuffer(undefined, MiB).finish();
    expect(content.length).toBe(0);
    expect(hashed).toBe(createHash('sha256').digest('hex'));
  });

  it('never takes more memory than the limit while growing to it', () => {
    const limit = 3 * MiB + 20_000;
    const { content } = receive(document, 65_536, 1000, limit);
    expect(content.buffer.byteLength).toBeLessThanOrEqual(limit);
    expect(content.equals(document)).toBe(true);
  });

  it('takes large memory from a DocumentMemory and gives back what it grew out of, or all of it when discarded', () => {
    const memory = new DocumentMemory(64 * MiB);
    const buffer = new DocumentBuffer(2 * MiB, 64 * MiB, memory);
    for (let offset = 0; offset < document.length; offset += 65_536) buffer.append(document.subarray(offset, offset + 65_536));
    // Grown from 2 MiB to 4: the 2 MiB is kept for the next document.
    expect(memory.freeBytes).toBe(2 * MiB);
    const { content } = buffer.finish();
    expect(content.equals(document)).toBe(true);
    expect(content.buffer.byteLength).toBe(4 * MiB);
    memory.release(content.buffer);
    expect(memory.freeBytes).toBe(6 * MiB);

    // The next document is written over a kept memory, and is exactly itself.
    const next = randomBytes(3 * MiB);
    const again = receiveInto(next, memory);
    expect(again.content.buffer.byteLength).toBe(4 * MiB);
    expect(again.content.equals(next)).toBe(true);
    expect(again.sha256).toBe(createHash('sha256').update(next).digest('hex'));

    const refused = new DocumentBuffer(3 * MiB, 64 * MiB, memory);
    refused.append(next.subarray(0, 1000));
    refused.discard();
    expect(memory.freeBytes).toBe(5 * MiB);
  });
});

function receiveInto(document: Buffer, memory: DocumentMemory) {
  const buffer = new DocumentBuffer(document.length, 64 * MiB, memory);
  for (let offset = 0; offset < document.length; offset += 65_536) buffer.append(document.subarray(offset, offset + 65_536));
  return buffer.finish();
}
