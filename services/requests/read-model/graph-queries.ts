import type { Queryable } from '../../database/queryable.js';
import { productInScopeSql } from '../../access/grants.js';

/**
 * The requests read model as the graph sees it: `query_graph` matches requests as `Request`
 * nodes and the blow-up guard counts them. The requests table is named here and in the rest
 * of this read model only.
 */

/** The requests as graph nodes, in the columns of a catalog node (`uid`, `label`, …). */
export const REQUEST_GRAPH_NODES = `SELECT request_id AS uid, 'Request'::text AS label, title, problem AS summary, product, ARRAY['latest']::text[] AS monikers, jsonb_build_object('stage', stage, 'status', status, 'priority', priority, 'requester', requester) AS attributes FROM read_model.requests`;

/** The requests within `products` (null: every product); 0 when the caller may not read them. */
export const countRequestsInScope = async (
  db: Queryable,
  readable: boolean,
  products: readonly string[] | null,
): Promise<number> => {
  const result = await db.query<{ n: number }>(
    `SELECT count(*)::float8 AS n FROM read_model.requests r
      WHERE $1::boolean AND ${productInScopeSql('r.product', '$2')}`,
    [readable, products],
  );
  return result.rows[0]?.n ?? 0;
};

/** Whether this database has the requests read model (a catalog-only database has not). */
export const hasRequestsReadModel = async (db: Queryable): Promise<boolean> => {
  const result = await db.query<{ table: string | null }>(
    `SELECT to_regclass('read_model.requests')::text AS table`,
  );
  return Boolean(result.rows[0]?.table);
};
