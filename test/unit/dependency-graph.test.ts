import { describe, expect, it } from 'vitest';
import { directAncestors, directFlags, firstPaths, pathsTo, type PathNode } from '../../src/domain/dependency-graph.js';

const npm = (name: string) => ({ ref: name, purl: `pkg:npm/${name}@1.0.0` });

describe('the dependency graph', () => {
  it('is unknown without a root, or with a root that depends on nothing', () => {
    const components = [npm('a'), npm('b')];
    expect(directFlags(components, [{ ref: 'a', dependsOn: ['b'] }], [])).toEqual([null, null]);
    expect(directFlags(components, [{ ref: 'a', dependsOn: ['b'] }], ['root'])).toEqual([null, null]);
  });

  it('sees through holders without a purl (a lockfile, an operating system) and leaves unreached components unknown', () => {
    const components = [{ ref: 'lock', purl: null }, npm('a'), npm('b'), npm('lost')];
    const dependencies = [{ ref: 'root', dependsOn: ['lock'] }, { ref: 'lock', dependsOn: ['a'] }, { ref: 'a', dependsOn: ['b'] }];
    expect(directFlags(components, dependencies, ['root'])).toEqual([null, true, false, null]);
  });

  it('walks a cycle, a missing ref and repeated edges without looping, shortest paths first', () => {
    // root -> a -> b -> c -> a (a cycle), c -> d, b -> ghost (no such component), a -> b twice.
    const components = ['a', 'b', 'c', 'd'].map(npm);
    const dependencies = [
      { ref: 'root', dependsOn: ['a'] }, { ref: 'a', dependsOn: ['b', 'b'] }, { ref: 'b', dependsOn: ['c', 'ghost'] },
      { ref: 'c', dependsOn: ['a', 'd'] }, { ref: 'd', dependsOn: [] },
    ];
    const direct = directFlags(components, dependencies, ['root']);
    expect(direct).toEqual([true, false, false, false]);
    const nodes: PathNode[] = components.map((c, i) => ({ ref: c.ref, direct: direct[i]!, dependsOn: dependencies.find((d) => d.ref === c.ref)?.dependsOn ?? [] }));
    expect(pathsTo(nodes, 3)).toEqual({ total: 1, paths: [[0, 1, 2, 3]] });
    // a is direct and also reached through the cycle: [a], then nothing longer (a path never repeats a node).
    expect(pathsTo(nodes, 0)).toEqual({ total: 1, paths: [[0]] });
    expect(directAncestors(nodes, 3)).toEqual([0]);
  });

  it('answers a graph of 100,000 edges with exponentially many paths, counting up to its bound', () => {
    // A ladder: 25,000 rungs, each node depending on both nodes of the next rung (2^rungs paths).
    const rungs = 25_000;
    const nodes: PathNode[] = [];
    for (let i = 0; i < rungs; i++) {
      for (const side of ['l', 'r']) {
        nodes.push({ ref: `${side}${i}`, direct: i === 0, dependsOn: i + 1 < rungs ? [`l${i + 1}`, `r${i + 1}`] : [] });
      }
    }
    expect(nodes.reduce((sum, n) => sum + n.dependsOn.length, 0)).toBeGreaterThanOrEqual(99_996);
    // 2^8 paths to a node of rung 8 (two choices of parent on each rung above it), all 9 long.
    const near = pathsTo(nodes, 2 * 8 + 1);
    expect(near.total).toBe(2 ** 8);
    expect(near.paths).toHaveLength(5);
    expect(near.paths.every((p) => p.length === 9 && p.at(-1) === 2 * 8 + 1)).toBe(true);
    // Past 1,000 paths the count stops; at the bottom the search stops at its step budget instead of running on.
    expect(pathsTo(nodes, 2 * 12).total).toBe(1000);
    expect(pathsTo(nodes, nodes.length - 1).total).toBeLessThanOrEqual(1000);
    expect(directAncestors(nodes, nodes.length - 1).sort()).toEqual([0, 1]);
  });

  it("gives a page's packages, in one pass, the first path each would get alone: ties, cycles and unknowns alike", () => {
    // Random graphs (a fixed seed): 40 nodes, some direct, some unknown, edges anywhere (cycles, self-edges, missing refs).
    let seed = 41;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const nodes: PathNode[] = Array.from({ length: 40 }, (_, i) => ({
        ref: `n${i}`,
        direct: random() < 0.15 ? true : random() < 0.1 ? null : false,
        dependsOn: Array.from({ length: Math.floor(random() * 4) }, () => `n${Math.floor(random() * 42)}`),
      }));
      const targets = nodes.map((_, i) => i);
      const together = firstPaths(nodes, targets);
      for (const target of targets) expect(together.get(target), `round ${round}, node ${target}`).toEqual(pathsTo(nodes, target, { keep: 1 }).paths[0]);
    }
  });

  it('finds the one path down a chain 50,000 deep (no recursion)', () => {
    const nodes: PathNode[] = Array.from({ length: 50_000 }, (_, i) => ({ ref: `n${i}`, direct: i === 0, dependsOn: [`n${i + 1}`] }));
    const found = pathsTo(nodes, 49_999);
    expect(found.total).toBe(1);
    expect(found.paths[0]).toHaveLength(50_000);
    expect(firstPaths(nodes, [49_999]).get(49_999)).toEqual(found.paths[0]);
    expect(directFlags(nodes.map((n) => npm(n.ref!)), [{ ref: 'root', dependsOn: ['n0'] }, ...nodes.map((n) => ({ ref: n.ref!, dependsOn: n.dependsOn }))], ['root']).filter((d) => d === false)).toHaveLength(49_999);
  });
});
