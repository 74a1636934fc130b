import { afterEach, describe, expect, it, vi } from 'vitest';
import { DocumentMemory } from '../../src/bodies/document-memory.js';

const MiB = 1024 * 1024;

describe('shared memory for large documents, used again', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds another document only once every reader has released it', () => {
    const memory = new DocumentMemory(64 * MiB);
    const first = memory.take(3 * MiB, 64 * MiB);
    memory.share(first); // handed to the ingest thread
    memory.release(first); // stored by the request thread
    expect(memory.take(3 * MiB, 64 * MiB)).not.toBe(first);
    memory.release(first); // parsed by the ingest thread
    expect(memory.freeBytes).toBe(3 * MiB);
    expect(memory.take(3 * MiB, 64 * MiB)).toBe(first);
    expect(memory.freeBytes).toBe(0);
  });

  it('gives a kept one to a document of about its size, the smallest that fits', () => {
    const memory = new DocumentMemory(64 * MiB);
    const large = memory.take(20 * MiB, 64 * MiB);
    const small = memory.take(2 * MiB + 5, 64 * MiB);
    // Sized in whole MiB, so a slightly larger document of the next upload fits.
    expect(small.byteLength).toBe(3 * MiB);
    memory.release(large);
    memory.release(small);
    expect(memory.take(3 * MiB, 64 * MiB)).toBe(small);
    expect(memory.take(10 * MiB, 64 * MiB)).toBe(large);
    expect(memory.take(10 * MiB, 64 * MiB)).not.toBe(large);
  });

  it('never sizes memory past the limit, and keeps no small document\'s', () => {
    const memory = new DocumentMemory(64 * MiB);
    expect(memory.take(2 * MiB + 5, 2 * MiB + 10).byteLength).toBe(2 * MiB + 10);
    const small = memory.take(1000, 64 * MiB);
    expect(small.byteLength).toBe(1000);
    memory.release(small);
    expect(memory.freeBytes).toBe(0);
  });

  it('keeps no more than its budget, dropping the oldest first', () => {
    const memory = new DocumentMemory(10 * MiB);
    const [a, b, c] = [memory.take(4 * MiB, 64 * MiB), memory.take(4 * MiB, 64 * MiB), memory.take(4 * MiB, 64 * MiB)];
    for (const kept of [a, b, c]) memory.release(kept);
    expect(memory.freeBytes).toBe(8 * MiB);
    const taken = [memory.take(4 * MiB, 64 * MiB), memory.take(4 * MiB, 64 * MiB)];
    expect(taken).toContain(b);
    expect(taken).toContain(c);
    expect(taken).not.toContain(a);
  });

  it('never uses again what a dead reader held', () => {
    const memory = new DocumentMemory(64 * MiB);
    const held = memory.take(2 * MiB, 64 * MiB);
    memory.share(held);
    memory.forget(held);
    memory.release(held);
    expect(memory.freeBytes).toBe(0);
    expect(memory.take(2 * MiB, 64 * MiB)).not.toBe(held);
  });

  it('lets go of what it kept once nobody took it for a minute', () => {
    vi.useFakeTimers();
    const memory = new DocumentMemory(64 * MiB);
    const kept = memory.take(2 * MiB, 64 * MiB);
    memory.release(kept);
    vi.advanceTimersByTime(59_000);
    expect(memory.freeBytes).toBe(2 * MiB);
    vi.advanceTimersByTime(2000);
    expect(memory.freeBytes).toBe(0);
    expect(memory.take(2 * MiB, 64 * MiB)).not.toBe(kept);
  });
});
