import { describe, expect, it } from 'vitest';
import { HandedOver } from '../../src/scans/handed-over.js';

const bytes = (n: number, fill = 1) => Buffer.alloc(n, fill);

describe('documents handed over to this instance\'s workers', () => {
  it('gives a document once: a second claim of the upload reads the database', () => {
    const handed = new HandedOver(100);
    const document = bytes(10);
    handed.put('u1', document);
    expect(handed.take('u1')).toBe(document);
    expect(handed.take('u1')).toBeUndefined();
    expect(handed.take('never-handed')).toBeUndefined();
    expect(handed.bytes).toBe(0);
  });

  it('keeps within its budget by dropping the oldest documents first', () => {
    const handed = new HandedOver(25);
    handed.put('u1', bytes(10));
    handed.put('u2', bytes(10));
    handed.put('u3', bytes(10));
    expect(handed.bytes).toBe(20);
    expect(handed.take('u1')).toBeUndefined();
    expect(handed.take('u2')?.length).toBe(10);
    expect(handed.take('u3')?.length).toBe(10);
  });

  it('keeps no document larger than its budget', () => {
    const handed = new HandedOver(25);
    handed.put('u1', bytes(10));
    handed.put('big', bytes(26));
    expect(handed.take('big')).toBeUndefined();
    expect(handed.take('u1')?.length).toBe(10);
  });

  it('drops documents nobody here claimed in time (another instance took the upload)', () => {
    let clock = 0;
    const handed = new HandedOver(100, 1000, () => clock);
    handed.put('u1', bytes(10));
    clock = 600;
    handed.put('u2', bytes(10));
    clock = 1200;
    expect(handed.take('u1')).toBeUndefined();
    expect(handed.take('u2')?.length).toBe(10);
    expect(handed.bytes).toBe(0);
  });

  it('counts a document handed twice once', () => {
    const handed = new HandedOver(100);
    handed.put('u1', bytes(10, 1));
    handed.put('u1', bytes(20, 2));
    expect(handed.bytes).toBe(20);
    expect(handed.take('u1')?.[0]).toBe(2);
  });
});
