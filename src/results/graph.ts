import { directAncestors, firstPaths, pathsTo, type PathNode } from '../domain/dependency-graph.js';
import type { GraphRow, PackageComponent, PackagePlace } from './store.js';

/** One SBOM's graph as read, its nodes parsed once however many paths are asked of it. */
export interface ComponentGraph {
  rows: GraphRow[];
  /** Paths down to the component with this id: from a direct dependency, shortest first, at most `keep`. */
  paths(componentId: string, keep?: number): { total: number; paths: GraphRow[][] };
  /** The first path of each of these components (as `paths` gives it), in one pass; none for a component without. */
  firstPaths(componentIds: readonly string[]): Map<string, GraphRow[]>;
  /** The direct dependencies that pull the component in (itself when it is one). */
  via(componentId: string): GraphRow[];
}

export function componentGraph(rows: GraphRow[]): ComponentGraph {
  const nodes: PathNode[] = rows.map((row) => ({
    ref: row.ref, direct: row.direct === null ? null : Boolean(row.direct), dependsOn: JSON.parse(row.depends_on) as string[],
  }));
  const index = new Map(rows.map((row, i) => [row.id, i]));
  return {
    rows,
    paths(componentId, keep = 5) {
      const at = index.get(componentId);
      if (at === undefined) return { total: 0, paths: [] };
      const found = pathsTo(nodes, at, { keep });
      return { total: found.total, paths: found.paths.map((path) => path.map((i) => rows[i]!)) };
    },
    firstPaths(componentIds) {
      const targets = componentIds.map((id) => index.get(id)).filter((at): at is number => at !== undefined);
      const found = new Map<string, GraphRow[]>();
      for (const [at, path] of firstPaths(nodes, targets)) found.set(rows[at]!.id, path.map((i) => rows[i]!));
      return found;
    },
    via(componentId) {
      const at = index.get(componentId);
      return at === undefined ? [] : directAncestors(nodes, at).map((i) => rows[i]!);
    },
  };
}

/**
 * The place of each of these purls in a ref's SBOMs, given the ref's components with those purls
 * (`components`, in id order): the first one with a known place in its graph stands for the purl. A
 * direct dependency's path is itself; the others' paths come from one read and one pass of each SBOM
 * graph they are in, however many findings name them.
 */
export async function packagePlaces(components: readonly PackageComponent[], graphOf: (analysisId: string) => Promise<GraphRow[]>): Promise<Map<string, PackagePlace>> {
  const chosen = new Map<string, PackageComponent>();
  for (const c of components) if (c.direct !== null && !chosen.has(c.purl)) chosen.set(c.purl, c);
  const places = new Map<string, PackagePlace>();
  const transitive = new Map<string, PackageComponent[]>();
  for (const [purl, c] of chosen) {
    if (c.direct) places.set(purl, { direct: true, path: [c] });
    else transitive.set(c.analysis_id, [...(transitive.get(c.analysis_id) ?? []), c]);
  }
  for (const [analysisId, list] of transitive) {
    const paths = componentGraph(await graphOf(analysisId)).firstPaths(list.map((c) => c.id));
    for (const c of list) places.set(c.purl, { direct: false, path: paths.get(c.id) ?? null });
  }
  return places;
}
