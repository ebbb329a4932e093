import type pg from 'pg';
import { mayReadType, scopeSqlValues, type ReadScope } from '../access/grants.js';
import { countCatalogGraph, countEdgesAt } from '../catalog/read-model/graph-queries.js';
import { countRequestsInScope } from '../requests/read-model/graph-queries.js';
import { labelsInScope } from '../catalog/vocabulary.js';
import type { GraphStats } from './estimate.js';

/**
 * The graph counts within the caller's scope: the blow-up guard's refusal then depends on
 * what the caller may read only, never on how much else exists. Each read model counts its
 * own: the catalog its nodes and edges, the requests read model its rows.
 */

/** The bind values of a scope for the statistics queries, and the key its counts are kept by. */
const statsScope = (scope: ReadScope): [string[] | null, string[] | null, boolean] => [
  labelsInScope(scope, 'catalog'),
  scopeSqlValues(scope).products,
  mayReadType(scope, 'request'),
];

export const statsKeyOf = (scope: ReadScope): string => JSON.stringify(statsScope(scope));

export const readGraphStats = async (pool: pg.Pool, scope: ReadScope): Promise<GraphStats> => {
  const [, products, requestsReadable] = statsScope(scope);
  const [catalog, requests] = await Promise.all([
    countCatalogGraph(pool, scope),
    countRequestsInScope(pool, requestsReadable, products),
  ]);
  const { nodesByLabel, edgesByType } = catalog;
  nodesByLabel.set('Request', requests);
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

/**
 * Edges of the given types leaving (`source`) or entering (`target`) the given nodes whose
 * other end is in the scope (an edge into hidden nodes is not walked, so it is not counted).
 */
export const readDegree = (
  pool: pg.Pool,
  scope: ReadScope,
  uids: readonly string[],
  types: readonly string[],
  side: 'source' | 'target',
): Promise<number> => countEdgesAt(pool, scope, uids, types, side);
