import type { NormalisedDependency } from '../../domain/scan.js';

/** Dependency edges collected without duplicates, in the order they were first seen. */
export class DependencyGraph {
  private readonly edges = new Map<string, Set<string>>();

  /** Records `from` (even with no edge: "depends on nothing" is information) and from → to. */
  add(from: string, to?: string): void {
    let targets = this.edges.get(from);
    if (!targets) this.edges.set(from, (targets = new Set()));
    if (to !== undefined) targets.add(to);
  }

  toList(): NormalisedDependency[] {
    return [...this.edges].map(([ref, targets]) => ({ ref, dependsOn: [...targets] }));
  }
}
