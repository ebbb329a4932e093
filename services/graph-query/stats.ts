import type pg from 'pg';
import type { GraphStats } from './estimate.js';

const STATS_SQL = `
SELECT 'node' AS kind, label AS key, count(*)::float8 AS n, 0::float8 AS sources, 0::float8 AS targets
  FROM read_model.catalog_nodes GROUP BY label
UNION ALL
SELECT 'node', 'Request', count(*)::float8, 0, 0 FROM read_model.requests
UNION ALL
SELECT 'edge', edge_type, count(*)::float8, count(DISTINCT source_uid)::float8, count(DISTINCT target_uid)::float8
  FROM read_model.catalog_edges GROUP BY edge_type`;

interface StatsRow {
  kind: 'node' | 'edge';
  key: string;
  n: number;
  sources: number;
  targets: number;
}

export const readGraphStats = async (pool: pg.Pool): Promise<GraphStats> => {
  const { rows } = await pool.query<StatsRow>(STATS_SQL);
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

const DEGREE_SQL = {
  source: `SELECT count(*)::float8 AS n FROM read_model.catalog_edges
            WHERE source_uid = ANY($1::text[]) AND ($2::text[] IS NULL OR edge_type = ANY($2::text[]))`,
  target: `SELECT count(*)::float8 AS n FROM read_model.catalog_edges
            WHERE target_uid = ANY($1::text[]) AND ($2::text[] IS NULL OR edge_type = ANY($2::text[]))`,
} as const;

/** Edges of the given types leaving (`source`) or entering (`target`) the given nodes. */
export const readDegree = async (
  pool: pg.Pool,
  uids: readonly string[],
  types: readonly string[],
  side: 'source' | 'target',
): Promise<number> => {
  const { rows } = await pool.query<{ n: number }>(DEGREE_SQL[side], [
    uids,
    types.length > 0 ? types : null,
  ]);
  return rows[0]?.n ?? 0;
};
