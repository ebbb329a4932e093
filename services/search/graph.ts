/**
 * The graph component: typed edges between indexed documents give two signals.
 * - Proximity: a document linked to several strong text hits is likely relevant too (the
 *   cluster hypothesis over explicit links); scores spread one hop from the top hits, by edge
 *   type weight, damped by the neighbour's degree so hubs do not win by being linked to all.
 * - Centrality: PageRank over the same edges, a small prior for well-connected documents.
 */
export interface GraphEdge {
  readonly source: string;
  readonly target: string;
  readonly type: string;
  /** Strength of the link (default 1), e.g. how often one document cites another. */
  readonly weight?: number;
}

interface Link {
  readonly other: string;
  readonly weight: number;
}

export interface DocumentGraph {
  readonly edgeCount: number;
  /** Replaces every outbound edge of the given sources. */
  replaceOutbound(sources: Iterable<string>, edges: readonly GraphEdge[]): void;
  /** Forgets a node: its outbound edges; inbound ones stay (the target may come back). */
  removeNode(id: string): void;
  /**
   * Proximity scores from `seeds` (id → text score in [0, 1]): Σ over linked seeds of
   * seed score × link weight / √degree. Only ids passing `accept` are scored. With a `scope`,
   * a degree counts only links to nodes in it.
   */
  proximity(
    seeds: ReadonlyMap<string, number>,
    accept: (id: string) => boolean,
    scope?: GraphScope,
  ): Map<string, number>;
  /**
   * PageRank (damping 0.85) of every node with an edge, scaled so the maximum is 1. With a
   * `scope`, of the subgraph of its nodes alone (kept per scope key until the graph changes).
   */
  centrality(scope?: GraphScope): ReadonlyMap<string, number>;
}

/** The nodes a restricted search may see: what it counts of the graph. */
export interface GraphScope {
  /** Equal for equal scopes (the PageRank of a scope is kept under it). */
  readonly key: string;
  includes(id: string): boolean;
}

/** Scoped PageRanks kept at most (scopes are few: one per distinct grant). */
const SCOPED_RANKS = 16;

export interface GraphOptions {
  /** Weight per edge type (types not listed: `defaultWeight`). */
  readonly edgeWeights?: Readonly<Record<string, number>>;
  readonly defaultWeight?: number;
}

export const createDocumentGraph = (options: GraphOptions = {}): DocumentGraph => {
  const typeWeight = (type: string): number =>
    options.edgeWeights?.[type] ?? options.defaultWeight ?? 1;
  const outbound = new Map<string, GraphEdge[]>();
  // Undirected view for proximity, rebuilt lazily after changes.
  let links: Map<string, Link[]> | undefined;
  let ranks: Map<string, number> | undefined;
  const scopedRanks = new Map<string, Map<string, number>>();
  let edgeCount = 0;

  const changed = (): void => {
    links = undefined;
    ranks = undefined;
    scopedRanks.clear();
  };

  const undirected = (): Map<string, Link[]> => {
    if (links) return links;
    const built = new Map<string, Map<string, number>>();
    const add = (a: string, b: string, weight: number): void => {
      let row = built.get(a);
      if (!row) built.set(a, (row = new Map<string, number>()));
      row.set(b, (row.get(b) ?? 0) + weight);
    };
    for (const edges of outbound.values()) {
      for (const edge of edges) {
        if (edge.source === edge.target) continue;
        const weight = typeWeight(edge.type) * (edge.weight ?? 1);
        if (weight <= 0) continue;
        add(edge.source, edge.target, weight);
        add(edge.target, edge.source, weight);
      }
    }
    links = new Map(
      [...built].map(([id, row]) => [id, [...row].map(([other, weight]) => ({ other, weight }))]),
    );
    return links;
  };

  return {
    get edgeCount() {
      return edgeCount;
    },
    replaceOutbound: (sources, edges) => {
      for (const source of sources) {
        edgeCount -= outbound.get(source)?.length ?? 0;
        outbound.delete(source);
      }
      for (const edge of edges) {
        let list = outbound.get(edge.source);
        if (!list) outbound.set(edge.source, (list = []));
        list.push(edge);
        edgeCount += 1;
      }
      changed();
    },
    removeNode: (id) => {
      edgeCount -= outbound.get(id)?.length ?? 0;
      if (outbound.delete(id)) changed();
    },
    proximity: (seeds, accept, scope) => {
      const graph = undirected();
      const scores = new Map<string, number>();
      const degreeOf = (id: string): number => {
        const row = graph.get(id) ?? [];
        if (!scope) return row.length || 1;
        return row.filter((link) => scope.includes(link.other)).length || 1;
      };
      for (const [seed, score] of seeds) {
        for (const { other, weight } of graph.get(seed) ?? []) {
          if (!accept(other)) continue;
          const degree = degreeOf(other);
          scores.set(other, (scores.get(other) ?? 0) + (score * weight) / Math.sqrt(degree));
        }
      }
      return scores;
    },
    centrality: (scope) => {
      if (!scope) {
        ranks ??= pageRank(outbound, typeWeight);
        return ranks;
      }
      let scoped = scopedRanks.get(scope.key);
      if (!scoped) {
        scoped = pageRank(withinScope(outbound, scope), typeWeight);
        if (scopedRanks.size >= SCOPED_RANKS) {
          scopedRanks.delete(scopedRanks.keys().next().value as string);
        }
        scopedRanks.set(scope.key, scoped);
      }
      return scoped;
    },
  };
};

/** The edges between nodes of the scope only. */
const withinScope = (
  outbound: ReadonlyMap<string, readonly GraphEdge[]>,
  scope: GraphScope,
): Map<string, GraphEdge[]> => {
  const kept = new Map<string, GraphEdge[]>();
  for (const [source, edges] of outbound) {
    if (!scope.includes(source)) continue;
    const inside = edges.filter((edge) => scope.includes(edge.target));
    if (inside.length > 0) kept.set(source, inside);
  }
  return kept;
};

const pageRank = (
  outbound: ReadonlyMap<string, readonly GraphEdge[]>,
  typeWeight: (type: string) => number,
): Map<string, number> => {
  const nodes = new Set<string>();
  for (const [source, edges] of outbound) {
    nodes.add(source);
    for (const edge of edges) nodes.add(edge.target);
  }
  const ids = [...nodes];
  const count = ids.length;
  if (count === 0) return new Map();
  const position = new Map(ids.map((id, index) => [id, index]));
  const damping = 0.85;
  let rank = new Float64Array(count).fill(1 / count);
  for (let iteration = 0; iteration < 30; iteration += 1) {
    const next = new Float64Array(count);
    let dangling = 0;
    ids.forEach((id, index) => {
      const edges = (outbound.get(id) ?? []).filter((edge) => edge.target !== id);
      const total = edges.reduce(
        (sum, edge) => sum + typeWeight(edge.type) * (edge.weight ?? 1),
        0,
      );
      const mass = rank[index] ?? 0;
      if (total <= 0) {
        dangling += mass;
        return;
      }
      for (const edge of edges) {
        const target = position.get(edge.target) ?? 0;
        next[target] =
          (next[target] ?? 0) + (mass * typeWeight(edge.type) * (edge.weight ?? 1)) / total;
      }
    });
    const base = (1 - damping) / count + (damping * dangling) / count;
    for (let i = 0; i < count; i += 1) next[i] = base + damping * (next[i] ?? 0);
    rank = next;
  }
  const max = Math.max(...rank);
  return new Map(ids.map((id, index) => [id, (rank[index] ?? 0) / max]));
};
