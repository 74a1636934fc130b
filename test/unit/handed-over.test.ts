import { describe, expect, it } from 'vitest';
import { HandedOver } from '../../src/scans/handed-over.js';
import { EarlyParse } from '../../src/scans/worker.js';
import { type NormalisedScan } from '../../src/domain/scan.js';
import { ParseError } from '../../src/scans/parsers/types.js';
import { sarifLog } from '../support/sarif.js';

const bytes = (n: number, fill = 1) => Buffer.alloc(n, fill);

describe('documents handed over to this instance\'s workers', () => {
  /** A HandedOver that records what it lets go of, in order. */
  function handedOver(budget: number, maxAgeMs?: number, clock?: () => number) {
    const letGo: string[] = [];
    return { handed: new HandedOver(budget, (uploadId) => letGo.push(uploadId), maxAgeMs, clock), letGo };
  }

  it('gives a document once: a second claim of the upload reads the database', () => {
    const { handed, letGo } = handedOver(100);
    const document = bytes(10);
    handed.put('u1', document);
    const taken = handed.take('u1');
    expect(taken?.content).toBe(document);
    expect(handed.take('u1')).toBeUndefined();
    expect(handed.take('never-handed')).toBeUndefined();
    expect(handed.bytes).toBe(0);
    // Taken is not let go of: the worker still parses it. Its release is, once however often called.
    expect(letGo).toEqual([]);
    taken!.release();
    taken!.release();
    expect(letGo).toEqual(['u1']);
  });

  it('keeps within its budget by dropping the oldest documents first, and lets go of them', () => {
    const { handed, letGo } = handedOver(25);
    handed.put('u1', bytes(10));
    handed.put('u2', bytes(10));
    handed.put('u3', bytes(10));
    expect(handed.bytes).toBe(20);
    expect(letGo).toEqual(['u1']);
    expect(handed.take('u1')).toBeUndefined();
    expect(handed.take('u2')?.content.length).toBe(10);
    expect(handed.take('u3')?.content.length).toBe(10);
  });

  it('keeps no document larger than its budget, and lets go of it at once', () => {
    const { handed, letGo } = handedOver(25);
    handed.put('u1', bytes(10));
    handed.put('big', bytes(26));
    expect(letGo).toEqual(['big']);
    expect(handed.take('big')).toBeUndefined();
    expect(handed.take('u1')?.content.length).toBe(10);
  });

  it('drops documents nobody here claimed in time (another instance took the upload)', () => {
    let clock = 0;
    const { handed, letGo } = handedOver(100, 1000, () => clock);
    handed.put('u1', bytes(10));
    clock = 600;
    handed.put('u2', bytes(10));
    clock = 1200;
    expect(handed.take('u1')).toBeUndefined();
    expect(letGo).toEqual(['u1']);
    expect(handed.take('u2')?.content.length).toBe(10);
    expect(handed.bytes).toBe(0);
  });

  it('counts a document handed twice once, and lets go of the one it replaced', () => {
    const { handed, letGo } = handedOver(100);
    const first = bytes(10, 1);
    handed.put('u1', first);
    handed.put('u1', bytes(20, 2));
    expect(handed.bytes).toBe(20);
    expect(letGo).toEqual(['u1']);
    expect(handed.take('u1')?.content[0]).toBe(2);
  });
});

describe('a large document parsed before its upload is claimed', () => {
  const sarif = (rule: string) => Buffer.from(sarifLog([{ rule, file: 'a.js' }]));

  it('gives the parsed scan to the claim of that upload, once', () => {
    const early = new EarlyParse(10);
    early.offer('u1', 'sarif', sarif('r1'));
    expect(early.take('u2')).toBeUndefined();
    const scan = early.take('u1');
    expect(scan).not.toBeInstanceOf(Error);
    expect((scan as NormalisedScan).analyses[0]!.findings.map((f) => f.ruleId)).toEqual(['r1']);
    expect(early.take('u1')).toBeUndefined();
  });

  it('parses no small document, and holds one scan at a time', () => {
    const early = new EarlyParse(10_000);
    early.offer('small', 'sarif', sarif('r1'));
    expect(early.take('small')).toBeUndefined();
    const big = new EarlyParse(10);
    big.offer('u1', 'sarif', sarif('r1'));
    big.offer('u2', 'sarif', sarif('r2'));
    expect(big.take('u2')).toBeUndefined();
    expect(big.take('u1')).toBeDefined();
  });

  it('drops a scan nobody here claimed in time, so the next document is parsed', () => {
    let clock = 0;
    const early = new EarlyParse(10, 1000, () => clock);
    early.offer('u1', 'sarif', sarif('r1'));
    clock = 1500;
    early.offer('u2', 'sarif', sarif('r2'));
    expect(early.take('u1')).toBeUndefined();
    expect(early.take('u2')).toBeDefined();
  });

  it('keeps the reason a document cannot be parsed, for the claim to fail the upload with', () => {
    const early = new EarlyParse(10);
    early.offer('u1', 'sarif', Buffer.from('{"version":"2.1.0","runs":"not a list of runs"}'));
    expect(early.take('u1')).toBeInstanceOf(ParseError);
  });
});
