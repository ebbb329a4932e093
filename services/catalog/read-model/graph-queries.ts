import type { ReadScope } from '../../access/grants.js';
import type { Queryable } from '../../database/queryable.js';
import { CATALOG_EDGES, CATALOG_NODES, nodeInScope, scopeValues } from './tables.js';

/**
 * The catalog's side of the graph query profile. The profile compiles openCypher into SQL; the
 * names it compiles against come from here: `catalog_nodes` has the graph's node shape (its
 * columns are named as the node properties `uid`, `label`, `title`, `summary`, `product`,
 * `monikers`, `attributes`), and `EDGE_COLUMN` names the columns of `catalog_edges`. The
 * counts its blow-up guard estimates from are typed queries here, within the caller's scope.
 */
export { CATALOG_EDGES, CATALOG_NODES } from './tables.js';

/** The catalog's nodes as the graph's node relation (one row per node, its properties). */
export const CATALOG_GRAPH_NODES = `SELECT uid, label, title, summary, product, monikers, attributes FROM ${CATALOG_NODES}`;

/** Columns of `catalog_edges`. */
export const EDGE_COLUMN = {
  source: 'source_uid',
  target: 'target_uid',
  type: 'edge_type',
  ordinal: 'ordinal',
  origin: 'origin',
} as const;

export interface EdgeTypeCounts {
  readonly edges: number;
  readonly sources: number;
  readonly targets: number;
}

export interface CatalogGraphCounts {
  readonly nodesByLabel: Map<string, number>;
  readonly edgesByType: Map<string, EdgeTypeCounts>;
}

/**
 * Catalog nodes per label and edges per type (with their distinct ends) within the scope, so
 * an estimate depends on what the caller may read only, never on how much else exists. An
 * edge counts when both its ends are in the scope (every edge, for an unrestricted one).
 */
const COUNTS_SQL = `
SELECT 'node' AS kind, label AS key, count(*)::float8 AS n, 0::float8 AS sources, 0::float8 AS targets
  FROM ${CATALOG_NODES} n WHERE ${nodeInScope('n', 1, 2)} GROUP BY label
UNION ALL
SELECT 'edge', edge_type, count(*)::float8, count(DISTINCT source_uid)::float8, count(DISTINCT target_uid)::float8
  FROM ${CATALOG_EDGES} e
 WHERE ($1::text[] IS NULL AND $2::text[] IS NULL)
    OR (EXISTS (SELECT 1 FROM ${CATALOG_NODES} s WHERE s.uid = e.source_uid AND ${nodeInScope('s', 1, 2)})
        AND EXISTS (SELECT 1 FROM ${CATALOG_NODES} t WHERE t.uid = e.target_uid AND ${nodeInScope('t', 1, 2)}))
 GROUP BY edge_type`;

interface CountsRow {
  kind: 'node' | 'edge';
  key: string;
  n: number;
  sources: number;
  targets: number;
}

export const countCatalogGraph = async (
  db: Queryable,
  scope: ReadScope,
): Promise<CatalogGraphCounts> => {
  const { rows } = await db.query<CountsRow>(COUNTS_SQL, scopeValues(scope));
  const nodesByLabel = new Map<string, number>();
  const edgesByType = new Map<string, EdgeTypeCounts>();
  for (const row of rows) {
    if (row.kind === 'node') nodesByLabel.set(row.key, row.n);
    else edgesByType.set(row.key, { edges: row.n, sources: row.sources, targets: row.targets });
  }
  return { nodesByLabel, edgesByType };
};

const degreeSql = (side: 'source' | 'target'): string => {
  const other = side === 'source' ? 'target_uid' : 'source_uid';
  return `SELECT count(*)::float8 AS n FROM ${CATALOG_EDGES} e
            WHERE e.${side}_uid = ANY($1::text[]) AND ($2::text[] IS NULL OR e.edge_type = ANY($2::text[]))
              AND (($3::text[] IS NULL AND $4::text[] IS NULL) OR EXISTS (
                SELECT 1 FROM ${CATALOG_NODES} o WHERE o.uid = e.${other} AND ${nodeInScope('o', 3, 4)}))`;
};
const DEGREE_SQL = { source: degreeSql('source'), target: degreeSql('target') } as const;

/**
 * Edges of the given types (none: every type) leaving (`source`) or entering (`target`) the
 * given nodes whose other end is in the scope (an edge into hidden nodes is not walked, so it
 * is not counted).
 */
export const countEdgesAt = async (
  db: Queryable,
  scope: ReadScope,
  uids: readonly string[],
  types: readonly string[],
  side: 'source' | 'target',
): Promise<number> => {
  const { rows } = await db.query<{ n: number }>(DEGREE_SQL[side], [
    uids,
    types.length > 0 ? types : null,
    ...scopeValues(scope),
  ]);
  return rows[0]?.n ?? 0;
};
