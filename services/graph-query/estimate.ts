import type { Expr, Scalar } from './ast.js';
import type { Analysis, HopBinding } from './analyze.js';
import { constantValue, type QueryParams } from './values.js';

/** Counts the blow-up guard estimates from (refreshed now and then, not per query). */
export interface GraphStats {
  readonly nodes: number;
  readonly nodesByLabel: ReadonlyMap<string, number>;
  readonly edgesByType: ReadonlyMap<
    string,
    { readonly edges: number; readonly sources: number; readonly targets: number }
  >;
}

/** How many nodes a variable can match before any hop: uid anchors, then its label. */
export const cardinality = (
  key: string,
  analysis: Analysis,
  stats: GraphStats,
  params: QueryParams,
): number => {
  const node = analysis.nodes.get(key);
  const byLabel =
    node?.label === undefined ? stats.nodes : (stats.nodesByLabel.get(node.label) ?? 0);
  const uids = anchorUids(key, analysis, params);
  return uids === undefined ? byLabel : Math.min(byLabel, uids.length);
};

/** The uids a `v.uid = value` / `v.uid IN list` condition pins v to (the shortest list). */
export const anchorUids = (
  key: string,
  analysis: Analysis,
  params: QueryParams,
): readonly unknown[] | undefined => {
  const node = analysis.nodes.get(key);
  const lists = [...(node?.conditions ?? []), ...analysis.conjuncts]
    .map((expr) => uidAnchor(expr, key, params))
    .filter((list): list is readonly unknown[] => list !== undefined);
  return lists.reduce<readonly unknown[] | undefined>(
    (best, list) => (best === undefined || list.length < best.length ? list : best),
    undefined,
  );
};

/** Without statistics: 1 for a uid-anchored node, 2 for a labelled one, 3 otherwise. */
export const anchorRank = (key: string, analysis: Analysis, params: QueryParams): number => {
  const node = analysis.nodes.get(key);
  const anchored = [...(node?.conditions ?? []), ...analysis.conjuncts].some(
    (expr) => uidAnchor(expr, key, params) !== undefined,
  );
  return anchored ? 1 : node?.label !== undefined ? 2 : 3;
};

/** `v.uid = value` or `v.uid IN list` pins v to those uids. */
const uidAnchor = (
  expr: Expr,
  key: string,
  params: QueryParams,
): readonly unknown[] | undefined => {
  if (expr.kind !== 'compare' || (expr.op !== '=' && expr.op !== 'IN')) return undefined;
  const isUid = (e: Expr) => e.kind === 'property' && e.variable === key && e.key === 'uid';
  const other = isUid(expr.left) ? expr.right : isUid(expr.right) ? expr.left : undefined;
  if (other === undefined || (expr.op === 'IN' && other === expr.left)) return undefined;
  const value = constantValue(other, params);
  if (value === undefined) return undefined;
  return Array.isArray(value) ? (value as readonly Scalar[]) : [value];
};

/** Mean neighbours reached in one step along the hop's types and direction. */
const fanout = (hop: HopBinding, stats: GraphStats): number => {
  const types = hop.types.length > 0 ? hop.types : [...stats.edgesByType.keys()];
  let total = 0;
  for (const type of types) {
    const counts = stats.edgesByType.get(type);
    if (!counts) continue;
    const out = counts.edges / Math.max(1, counts.sources);
    const back = counts.edges / Math.max(1, counts.targets);
    total += hop.direction === 'out' ? out : hop.direction === 'in' ? back : out + back;
  }
  return total;
};

/**
 * Paths one hop pattern yields per start node: the sum of fanout^k over its lengths. `first`
 * replaces the mean for the first step when the start's real degree is known (a hub).
 */
const hopMultiplier = (hop: HopBinding, stats: GraphStats, first?: number): number => {
  const f = fanout(hop, stats);
  const f1 = Math.max(f, first ?? 0);
  let sum = 0;
  for (let k = hop.minHops; k <= hop.maxHops; k += 1) sum += f1 * f ** (k - 1);
  return Math.max(sum, 1);
};

/**
 * Edges leaving uid-anchored nodes along the hops that touch them, counted exactly (the mean
 * fanout hides hubs): `degree(key, hopIndex)` is the total over the anchor's uids, read from
 * the anchor's side of the hop.
 */
export type AnchorDegrees = (key: string, hopIndex: number) => number | undefined;

/**
 * Rows the pattern may produce before WHERE filters: per connected part, the most selective
 * node's cardinality times the paths every hop can branch into from it (mean fanout from the
 * statistics); parts joined only by WHERE multiply. Deliberately coarse and conservative: the
 * statement timeout backs it up.
 */
export const estimateRows = (
  analysis: Analysis,
  stats: GraphStats,
  params: QueryParams,
  degree: AnchorDegrees = () => undefined,
): number => {
  const keys = [...analysis.nodes.keys()];
  const part = new Map(keys.map((key) => [key, key]));
  const find = (key: string): string => {
    let root = key;
    while (part.get(root) !== root) root = part.get(root) ?? root;
    return root;
  };
  for (const hop of analysis.hops) part.set(find(hop.left), find(hop.right));
  let rows = 1;
  for (const root of new Set(keys.map(find))) {
    const members = keys.filter((key) => find(key) === root);
    const sizes = members.map((key) => cardinality(key, analysis, stats, params));
    const anchor = Math.min(...sizes);
    const anchorKey = members[sizes.indexOf(anchor)] ?? '';
    rows *= analysis.hops.reduce((product, hop, index) => {
      if (find(hop.left) !== root) return product;
      const touches = hop.left === anchorKey || hop.right === anchorKey;
      const known = touches ? degree(anchorKey, index) : undefined;
      const first = known === undefined ? undefined : known / Math.max(anchor, 1);
      return product * hopMultiplier(hop, stats, first);
    }, anchor);
  }
  return rows;
};
