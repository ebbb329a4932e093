import type pg from 'pg';
import {
  mayReadType,
  productInScopeSql,
  scopeSqlValues,
  typeInScopeSql,
  type ReadScope,
} from '../access/grants.js';
import { labelsInScope } from '../catalog/vocabulary.js';
import type { GraphStats } from './estimate.js';

/**
 * The graph counts within a scope bound at $1 (catalog labels), $2 (products) and $3 (whether
 * requests are readable): the blow-up guard's refusal then depends on what the caller may
 * read only, never on how much else exists.
 */
const nodeInScope = (alias: string): string =>
  `${typeInScopeSql(`${alias}.label`, '$1')} AND ${productInScopeSql(`${alias}.product`, '$2')}`;
const STATS_SQL = `
SELECT 'node' AS kind, label AS key, count(*)::float8 AS n, 0::float8 AS sources, 0::float8 AS targets
  FROM read_model.catalog_nodes n WHERE ${nodeInScope('n')} GROUP BY label
UNION ALL
SELECT 'node', 'Request', count(*)::float8, 0, 0 FROM read_model.requests r
 WHERE $3::boolean AND ${productInScopeSql('r.product', '$2')}
UNION ALL
SELECT 'edge', edge_type, count(*)::float8, count(DISTINCT source_uid)::float8, count(DISTINCT target_uid)::float8
  FROM read_model.catalog_edges e
 WHERE ($1::text[] IS NULL AND $2::text[] IS NULL)
    OR (EXISTS (SELECT 1 FROM read_model.catalog_nodes s WHERE s.uid = e.source_uid AND ${nodeInScope('s')})
        AND EXISTS (SELECT 1 FROM read_model.catalog_nodes t WHERE t.uid = e.target_uid AND ${nodeInScope('t')}))
 GROUP BY edge_type`;

interface StatsRow {
  kind: 'node' | 'edge';
  key: string;
  n: number;
  sources: number;
  targets: number;
}

/** The bind values of a scope for the statistics queries, and the key its counts are kept by. */
const statsScope = (scope: ReadScope): [string[] | null, string[] | null, boolean] => [
  labelsInScope(scope, 'catalog'),
  scopeSqlValues(scope).products,
  mayReadType(scope, 'request'),
];

export const statsKeyOf = (scope: ReadScope): string => JSON.stringify(statsScope(scope));

export const readGraphStats = async (pool: pg.Pool, scope: ReadScope): Promise<GraphStats> => {
  const { rows } = await pool.query<StatsRow>(STATS_SQL, statsScope(scope));
  const nodesByLabel = new Map<string, number>();
  const edgesByType = new Map<string, { edges: number; sources: number; targets: number }>();
  for (const row of rows) {
    if (row.kind === 'node') nodesByLabel.set(row.key, row.n);
    else edgesByType.set(row.key, { edges: row.n, sources: row.sources, targets: row.targets });
  }
  const nodes = [...nodesByLabel.values()].reduce((sum, n) => sum + n, 0);
  return { nodes, nodesByLabel, edgesByType };
};

export interface StatsCache {
  get(): Promise<GraphStats>;
}

/**
 * Counting the graph costs a scan, so the counts are kept for `ttlMs`; once stale they are
 * served while one refresh runs in the background (a query never waits on a recount except
 * the very first).
 */
export const createStatsCache = (
  load: () => Promise<GraphStats>,
  ttlMs: number,
  now: () => number = () => performance.now(),
): StatsCache => {
  let current: { stats: GraphStats; at: number } | undefined;
  let refreshing: Promise<GraphStats> | undefined;
  const refresh = (): Promise<GraphStats> => {
    refreshing ??= load()
      .then((stats) => {
        current = { stats, at: now() };
        return stats;
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };
  return {
    get: () => {
      if (!current) return refresh();
      if (now() - current.at > ttlMs) refresh().catch(() => undefined);
      return Promise.resolve(current.stats);
    },
  };
};

const degreeSql = (side: 'source' | 'target'): string => {
  const other = side === 'source' ? 'target_uid' : 'source_uid';
  return `SELECT count(*)::float8 AS n FROM read_model.catalog_edges e
            WHERE e.${side}_uid = ANY($1::text[]) AND ($2::text[] IS NULL OR e.edge_type = ANY($2::text[]))
              AND (($3::text[] IS NULL AND $4::text[] IS NULL) OR EXISTS (
                SELECT 1 FROM read_model.catalog_nodes o WHERE o.uid = e.${other}
                   AND ${typeInScopeSql('o.label', '$3')} AND ${productInScopeSql('o.product', '$4')}))`;
};
const DEGREE_SQL = { source: degreeSql('source'), target: degreeSql('target') } as const;

/**
 * Edges of the given types leaving (`source`) or entering (`target`) the given nodes whose
 * other end is in the scope (an edge into hidden nodes is not walked, so it is not counted).
 */
export const readDegree = async (
  pool: pg.Pool,
  scope: ReadScope,
  uids: readonly string[],
  types: readonly string[],
  side: 'source' | 'target',
): Promise<number> => {
  const [labels, products] = statsScope(scope);
  const { rows } = await pool.query<{ n: number }>(DEGREE_SQL[side], [
    uids,
    types.length > 0 ? types : null,
    labels,
    products,
  ]);
  return rows[0]?.n ?? 0;
};
