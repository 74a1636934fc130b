import { directAncestors, pathsTo, type PathNode } from '../domain/dependency-graph.js';
import type { GraphRow } from './store.js';

/** One SBOM's graph as read, its nodes parsed once however many paths are asked of it. */
export interface ComponentGraph {
  rows: GraphRow[];
  /** Paths down to the component with this id: from a direct dependency, shortest first, at most `keep`. */
  paths(componentId: string, keep?: number): { total: number; paths: GraphRow[][] };
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
    via(componentId) {
      const at = index.get(componentId);
      return at === undefined ? [] : directAncestors(nodes, at).map((i) => rows[i]!);
    },
  };
}
