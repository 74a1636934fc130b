/**
 * An SBOM's dependency graph: which components are direct dependencies of what the SBOM describes,
 * and by which paths a component is pulled in. Pure and iterative: graphs come from uploads, so they
 * may be cyclic, name refs no component has, repeat edges, and hold 100,000 edges.
 */

/** A component as the graph needs it. */
export interface GraphComponent {
  ref: string | null;
  purl: string | null;
}

/**
 * `direct` for each component, in order: true when a root depends on it, or a component without a
 * purl that a root holds (Trivy's lockfile "application", an image's operating system) does; false
 * when a root reaches it only through other packages; null when it is not reached, is a root or
 * such a holder, or when there is no graph (no root, or no root with edges): "unknown".
 */
export function directFlags(
  components: readonly GraphComponent[], dependencies: readonly { ref: string; dependsOn: readonly string[] }[], roots: readonly string[],
): (boolean | null)[] {
  const children = new Map<string, readonly string[]>();
  for (const d of dependencies) if (!children.has(d.ref)) children.set(d.ref, d.dependsOn);
  const startAt = roots.filter((root) => (children.get(root)?.length ?? 0) > 0);
  if (startAt.length === 0) return components.map(() => null);
  const purlOf = new Map<string, string | null>();
  for (const c of components) if (c.ref !== null && !purlOf.has(c.ref)) purlOf.set(c.ref, c.purl);
  // A holder: a listed component without a purl that has dependencies of its own.
  const holds = (ref: string) => purlOf.has(ref) && purlOf.get(ref) === null && (children.get(ref)?.length ?? 0) > 0;

  const rootSet = new Set(roots);
  const holders = new Set<string>();
  const direct = new Set<string>();
  const queue: string[] = [...startAt];
  for (let i = 0; i < queue.length; i++) {
    for (const child of children.get(queue[i]!) ?? []) {
      if (rootSet.has(child) || holders.has(child)) continue;
      if (holds(child)) {
        holders.add(child);
        direct.delete(child);
        queue.push(child);
      } else {
        direct.add(child);
      }
    }
  }
  const reached = new Set<string>(startAt);
  const walk = [...startAt];
  for (let i = 0; i < walk.length; i++) {
    for (const child of children.get(walk[i]!) ?? []) {
      if (!reached.has(child)) {
        reached.add(child);
        walk.push(child);
      }
    }
  }
  return components.map((c) => {
    if (c.ref === null || rootSet.has(c.ref) || holders.has(c.ref)) return null;
    if (direct.has(c.ref)) return true;
    return reached.has(c.ref) ? false : null;
  });
}

/** A stored component as path finding reads it. */
export interface PathNode {
  ref: string | null;
  direct: boolean | null;
  dependsOn: readonly string[];
}

export interface Paths {
  /** How many paths there are (counted up to `countUpTo`, past which it says that many). */
  total: number;
  /** Each a list of node indexes from a direct dependency down to the target, shortest first. */
  paths: number[][];
}

/** Node ids on a path are chained back to the target, so a path is never copied while searched. */
interface Step {
  node: number;
  next: Step | null;
  length: number;
}

/**
 * The paths from direct dependencies down to `target`: breadth first, upwards from the target
 * through whoever depends on it, so the shortest come first. A path stops being extended where it
 * would repeat a node (cycles); a direct dependency also depended on by others ends one path and
 * goes on into longer ones, as `npm ls` lists both. The search is bounded by `budget` steps and
 * `countUpTo` paths, so a graph with exponentially many paths answers at once.
 */
export function pathsTo(nodes: readonly PathNode[], target: number, { keep = 5, countUpTo = 1000, budget = 200_000 } = {}): Paths {
  const found: Paths = { total: 0, paths: [] };
  const start = nodes[target];
  if (!start || start.direct === null) return found;
  const parents = parentsOf(nodes);
  // Each node's distance up from the target: a node on a path of n nodes is at most n - 1 away, so
  // a parent farther than that cannot be on it, and the walk along the path (for cycles) is skipped.
  // Without this, a chain 50,000 deep took 1.25 billion comparisons.
  const distance = new Map<number, number>([[target, 0]]);
  const around = [target];
  for (let i = 0; i < around.length; i++) {
    const at = around[i]!;
    for (const parent of parents.get(at) ?? []) {
      if (!distance.has(parent)) {
        distance.set(parent, distance.get(at)! + 1);
        around.push(parent);
      }
    }
  }
  const queue: Step[] = [{ node: target, next: null, length: 1 }];
  let steps = 0;
  for (let i = 0; i < queue.length; i++) {
    const step = queue[i]!;
    queue[i] = undefined as never; // what was read is let go: the queue of a wide graph is long
    if (nodes[step.node]!.direct === true) {
      found.total++;
      if (found.paths.length < keep) found.paths.push(pathOf(step));
      if (found.total >= countUpTo) break;
    }
    for (const parent of parents.get(step.node) ?? []) {
      if (distance.get(parent)! < step.length && onPath(step, parent)) continue;
      if (++steps > budget) return found;
      queue.push({ node: parent, next: step, length: step.length + 1 });
    }
  }
  return found;
}

/**
 * The first path `pathsTo` would give each of `targets`, for all of them in one pass over the graph
 * (a findings page names many packages of one SBOM): each node's distance from the nearest direct
 * dependency, breadth first down from all of them at once, then from each target up through the
 * first of its parents one step nearer. pathsTo's queue takes parents in index order, so its first
 * path is exactly that walk. A target without a path (unknown, or not reached) has none in the map.
 */
export function firstPaths(nodes: readonly PathNode[], targets: readonly number[]): Map<number, number[]> {
  const parents = parentsOf(nodes);
  const children = new Map<number, number[]>();
  for (const [child, list] of parents) {
    for (const parent of list) {
      const out = children.get(parent);
      if (out) out.push(child);
      else children.set(parent, [child]);
    }
  }
  const distance = new Map<number, number>();
  const queue: number[] = [];
  nodes.forEach((node, index) => {
    if (node.direct === true) {
      distance.set(index, 0);
      queue.push(index);
    }
  });
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    for (const child of children.get(at) ?? []) {
      if (!distance.has(child)) {
        distance.set(child, distance.get(at)! + 1);
        queue.push(child);
      }
    }
  }
  const found = new Map<number, number[]>();
  for (const target of targets) {
    if (nodes[target]?.direct == null || !distance.has(target)) continue;
    const path = [target];
    for (let at = target; distance.get(at)! > 0;) {
      const nearer = distance.get(at)! - 1;
      at = (parents.get(at) ?? []).find((parent) => distance.get(parent) === nearer)!;
      path.push(at);
    }
    found.set(target, path.reverse());
  }
  return found;
}

function onPath(step: Step, node: number): boolean {
  for (let at: Step | null = step; at !== null; at = at.next) if (at.node === node) return true;
  return false;
}

function pathOf(step: Step): number[] {
  const path: number[] = [];
  for (let at: Step | null = step; at !== null; at = at.next) path.push(at.node);
  return path;
}

/**
 * The direct dependencies that pull `target` in (itself, when it is one): every node with
 * `direct` true that reaches it, found walking upwards breadth first, each node once.
 */
export function directAncestors(nodes: readonly PathNode[], target: number): number[] {
  const start = nodes[target];
  if (!start || start.direct === null) return [];
  const parents = parentsOf(nodes);
  const seen = new Set([target]);
  const queue = [target];
  const found: number[] = [];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i]!;
    if (nodes[at]!.direct === true) found.push(at);
    for (const parent of parents.get(at) ?? []) {
      if (!seen.has(parent)) {
        seen.add(parent);
        queue.push(parent);
      }
    }
  }
  return found;
}

/**
 * Who depends on each node, by index: refs resolved to the first node of that ref (duplicates,
 * refs no component has and self-edges are left out). Only nodes with a known place in the graph
 * (`direct` not null) lead towards a direct dependency.
 */
function parentsOf(nodes: readonly PathNode[]): Map<number, number[]> {
  const byRef = new Map<string, number>();
  nodes.forEach((node, index) => {
    if (node.ref !== null && !byRef.has(node.ref)) byRef.set(node.ref, index);
  });
  const parents = new Map<number, number[]>();
  nodes.forEach((node, index) => {
    if (node.direct === null) return;
    for (const ref of new Set(node.dependsOn)) {
      const child = byRef.get(ref);
      if (child === undefined || child === index) continue;
      const list = parents.get(child);
      if (list) list.push(index);
      else parents.set(child, [index]);
    }
  });
  return parents;
}
