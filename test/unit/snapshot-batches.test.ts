import { describe, expect, it } from 'vitest';
import { batches } from '../../src/metrics/snapshot.js';

// The daily snapshot reads repositories' histories a batch at a time; a batch must stay small in
// findings, or the serving process holds them all at once (800 MiB at 500 repositories of 1,000).
describe('snapshot batches', () => {
  const repo = (name: string, findings: number) => ({ name, findings });
  const names = (all: Iterable<{ name: string }[]>) => [...all].map((b) => b.map((r) => r.name));

  it('closes a batch before the repository that would take it past the findings limit', () => {
    const due = [repo('a', 8), repo('b', 8), repo('c', 8), repo('d', 1)];
    expect(names(batches(due, { repositories: 10, findings: 20 }))).toEqual([['a', 'b'], ['c', 'd']]);
  });

  it('reads a repository with more findings than the limit alone', () => {
    const due = [repo('a', 2), repo('huge', 500), repo('b', 2), repo('c', 2)];
    expect(names(batches(due, { repositories: 10, findings: 20 }))).toEqual([['a'], ['huge'], ['b', 'c']]);
  });

  it('holds at most the repository limit however few findings they have', () => {
    const due = Array.from({ length: 7 }, (_, i) => repo(`r${i}`, 0));
    expect(names(batches(due, { repositories: 3, findings: 20 }))).toEqual([['r0', 'r1', 'r2'], ['r3', 'r4', 'r5'], ['r6']]);
  });

  it('keeps every repository once, in order', () => {
    const due = Array.from({ length: 1000 }, (_, i) => repo(`r${i}`, (i * 7919) % 300));
    const all = [...batches(due, { repositories: 50, findings: 1000 })];
    expect(all.flat().map((r) => r.name)).toEqual(due.map((r) => r.name));
    for (const batch of all) {
      expect(batch.length).toBeLessThanOrEqual(50);
      if (batch.length > 1) expect(batch.reduce((n, r) => n + r.findings, 0)).toBeLessThanOrEqual(1000);
    }
    expect(names(batches([], { repositories: 5, findings: 5 }))).toEqual([]);
  });
});
