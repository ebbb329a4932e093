import {
  countRequestsInScope,
  hasRequestsReadModel,
} from '../../requests/read-model/graph-queries.js';
import type { NodeContent, NodeEdge, NodeSection } from '../content.js';
import { compareEdges, EDGE_ORIGINS, type EdgeOrigin } from '../content.js';
import { scopeSqlValues, type ReadScope } from '../../access/grants.js';
import { labelForResourceType, labelsInScope } from '../vocabulary.js';
import type { Queryable } from '../../database/queryable.js';
import { getResource } from '../../../projections/resources.js';
import { catalogNodeUri } from './projection.js';
import {
  CATALOG_EDGES,
  CATALOG_NODES,
  CATALOG_SOURCES,
  nodeInScope,
  scopeValues,
  type EdgeTableRow,
  type NodeTableRow,
  nodeFieldsOf,
} from './tables.js';

/**
 * Typed reads of the catalog read model (never of the node streams). Every read takes the
 * caller's `ReadScope` and filters in SQL: a node outside it is never read, an edge to one is
 * never followed, and neither is counted.
 */
export interface CatalogNode {
  readonly content: NodeContent;
  readonly contentHash: string;
  readonly lastModified: string;
  readonly revision: number;
  readonly uri: string;
}

export interface CatalogNodeSummary {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly summary: string;
  readonly monikers: readonly string[];
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface CatalogEdgeRow {
  readonly source: string;
  readonly type: string;
  readonly target: string;
  readonly ordinal: number;
  readonly origin: EdgeOrigin;
  readonly anchor?: string;
}

const toEdge = (row: EdgeTableRow): CatalogEdgeRow => ({
  source: row.source_uid,
  type: row.edge_type,
  target: row.target_uid,
  ordinal: row.ordinal,
  origin: (EDGE_ORIGINS as readonly string[]).includes(row.origin)
    ? (row.origin as EdgeOrigin)
    : 'frontMatter',
  ...(row.anchor === null ? {} : { anchor: row.anchor }),
});

const EDGE_COLUMNS = 'source_uid, edge_type, target_uid, ordinal, origin, anchor';

export const getCatalogNode = async (
  db: Queryable,
  scope: ReadScope,
  uid: string,
): Promise<CatalogNode | undefined> => {
  const result = await db.query<NodeTableRow>(
    `SELECT uid, label, title, summary, body, product, monikers, attributes, source_path,
            source, path, page, sections, content_hash, last_modified, revision
       FROM ${CATALOG_NODES} n WHERE uid = $1 AND ${nodeInScope('n', 2, 3)}`,
    [uid, ...scopeValues(scope)],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  // An edge to a node outside the scope is left out; one to no node at all (retired) stays,
  // as the events carried it.
  const edges = await db.query<EdgeTableRow>(
    `SELECT ${EDGE_COLUMNS} FROM ${CATALOG_EDGES} e
      WHERE source_uid = $1 AND NOT EXISTS (
        SELECT 1 FROM ${CATALOG_NODES} t
         WHERE t.uid = e.target_uid AND NOT (${nodeInScope('t', 2, 3)}))`,
    [uid, ...scopeValues(scope)],
  );
  // Rebuilt exactly as the events carried it (same normal form), so hashes agree.
  const content: NodeContent = {
    ...nodeFieldsOf(row),
    edges: edges.rows
      .map(toEdge)
      .map(({ type, target, ordinal, origin, anchor }): NodeEdge => ({
        type,
        target,
        ordinal,
        origin,
        ...(anchor === undefined ? {} : { anchor }),
      }))
      .sort(compareEdges),
    sourcePath: row.source_path,
    ...(row.source === null ? {} : { source: row.source }),
    ...(row.path === null ? {} : { path: row.path }),
    ...(row.page === null ? {} : { page: row.page }),
    ...(row.sections === null ? {} : { sections: row.sections }),
  };
  return {
    content,
    contentHash: row.content_hash,
    lastModified: row.last_modified.toISOString(),
    revision: Number(row.revision),
    uri: catalogNodeUri(row.label, row.uid),
  };
};

export const getNodeSummaries = async (
  db: Queryable,
  scope: ReadScope,
  uids: readonly string[],
): Promise<Map<string, CatalogNodeSummary>> => {
  if (uids.length === 0) return new Map();
  const result = await db.query<
    Pick<NodeTableRow, 'uid' | 'label' | 'title' | 'summary' | 'monikers' | 'attributes'>
  >(
    `SELECT uid, label, title, summary, monikers, attributes
       FROM ${CATALOG_NODES} n WHERE uid = ANY($1::text[]) AND ${nodeInScope('n', 2, 3)}`,
    [uids, ...scopeValues(scope)],
  );
  return new Map(result.rows.map((row) => [row.uid, row]));
};

export interface EdgeQuery {
  readonly uids: readonly string[];
  /** `out`: edges whose source is in `uids`; `in`: whose target is. */
  readonly direction: 'out' | 'in';
  /** Undefined: every type. */
  readonly types?: readonly string[] | undefined;
}

/** Edges between live nodes of the scope only (a retired or hidden end is not followed). */
export const getEdges = async (
  db: Queryable,
  scope: ReadScope,
  query: EdgeQuery,
): Promise<CatalogEdgeRow[]> => {
  if (query.uids.length === 0) return [];
  const column = query.direction === 'out' ? 'e.source_uid' : 'e.target_uid';
  const result = await db.query<EdgeTableRow>(
    `SELECT e.source_uid, e.edge_type, e.target_uid, e.ordinal, e.origin, e.anchor
       FROM ${CATALOG_EDGES} e
       JOIN ${CATALOG_NODES} s ON s.uid = e.source_uid
       JOIN ${CATALOG_NODES} t ON t.uid = e.target_uid
      WHERE ${column} = ANY($1::text[]) AND ($2::text[] IS NULL OR e.edge_type = ANY($2::text[]))
        AND ${nodeInScope('s', 3, 4)} AND ${nodeInScope('t', 3, 4)}
      ORDER BY e.source_uid, e.edge_type, e.ordinal, e.target_uid`,
    [query.uids, query.types ?? null, ...scopeValues(scope)],
  );
  return result.rows.map(toEdge);
};

/** Every moniker some node of the scope carries, sorted. */
export const listMonikersInUse = async (db: Queryable, scope: ReadScope): Promise<string[]> => {
  const result = await db.query<{ moniker: string }>(
    `SELECT DISTINCT unnest(monikers) AS moniker FROM ${CATALOG_NODES} n
      WHERE ${nodeInScope('n', 1, 2)} ORDER BY 1`,
    scopeValues(scope),
  );
  return result.rows.map((row) => row.moniker);
};

/** Nodes per label, counting only the scope's. */
export const countNodesByLabel = async (
  db: Queryable,
  scope: ReadScope,
): Promise<Map<string, number>> => {
  const result = await db.query<{ label: string; count: string }>(
    `SELECT label, count(*) AS count FROM ${CATALOG_NODES} n
      WHERE ${nodeInScope('n', 1, 2)} GROUP BY label`,
    scopeValues(scope),
  );
  const counts = new Map(result.rows.map((row) => [row.label, Number(row.count)]));
  // Request nodes are the requests read model's rows (as query_graph matches them).
  const labels = labelsInScope(scope);
  if ((labels === null || labels.includes('Request')) && (await hasRequestsReadModel(db))) {
    counts.set('Request', await countRequestsInScope(db, true, scopeSqlValues(scope).products));
  }
  return counts;
};

/**
 * Of `uids`, the nodes with an edge to a node outside the scope: their document as the scope
 * reads it (those edges left out) differs from the one the resource index hashed.
 */
export const uidsWithHiddenEdges = async (
  db: Queryable,
  scope: ReadScope,
  uids: readonly string[],
): Promise<Set<string>> => {
  if (uids.length === 0) return new Set();
  const result = await db.query<{ uid: string }>(
    `SELECT DISTINCT e.source_uid AS uid FROM ${CATALOG_EDGES} e
       JOIN ${CATALOG_NODES} t ON t.uid = e.target_uid
      WHERE e.source_uid = ANY($1::text[]) AND NOT (${nodeInScope('t', 2, 3)})`,
    [uids, ...scopeValues(scope)],
  );
  return new Set(result.rows.map((row) => row.uid));
};

/** uid and title of every node of the scope (for closest-match suggestions), capped. */
export const listUidsAndTitles = async (
  db: Queryable,
  scope: ReadScope,
  limit = 20_000,
): Promise<{ uid: string; title: string; label: string }[]> => {
  const result = await db.query<Pick<NodeTableRow, 'uid' | 'title' | 'label'>>(
    `SELECT uid, title, label FROM ${CATALOG_NODES} n
      WHERE ${nodeInScope('n', 2, 3)} ORDER BY uid LIMIT $1`,
    [limit, ...scopeValues(scope)],
  );
  return result.rows;
};

export interface SitePathNode {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly monikers: readonly string[];
  readonly source: string | null;
  readonly path: string | null;
  readonly page: string | null;
  readonly sections: readonly NodeSection[] | null;
}

/**
 * Nodes of the scope by uid, or by site path or the page across versions (a page's versions
 * are the nodes sharing its `page`), optionally within some sources.
 */
export const findSitePages = async (
  db: Queryable,
  scope: ReadScope,
  by: {
    readonly uids?: readonly string[];
    readonly paths?: readonly string[];
    readonly sources?: readonly string[];
  },
): Promise<SitePathNode[]> => {
  if ((by.uids?.length ?? 0) === 0 && (by.paths?.length ?? 0) === 0) return [];
  const result = await db.query<
    Pick<
      NodeTableRow,
      'uid' | 'label' | 'title' | 'monikers' | 'source' | 'path' | 'page' | 'sections'
    >
  >(
    `SELECT uid, label, title, monikers, source, path, page, sections
       FROM ${CATALOG_NODES} n
      WHERE (uid = ANY($4::text[]) OR path = ANY($5::text[]) OR page = ANY($5::text[]))
        AND ($1::text[] IS NULL OR source = ANY($1::text[]))
        AND ${nodeInScope('n', 2, 3)}
      ORDER BY uid LIMIT 200`,
    [by.sources ?? null, ...scopeValues(scope), by.uids ?? [], by.paths ?? []],
  );
  return result.rows;
};

/** The sources that know their site's public URL. */
export const listSourceSites = async (
  db: Queryable,
): Promise<{ name: string; baseUrl: string }[]> => {
  const result = await db.query<{ name: string; base_url: string }>(
    `SELECT name, base_url FROM ${CATALOG_SOURCES} WHERE base_url IS NOT NULL ORDER BY name`,
  );
  return result.rows.map((row) => ({ name: row.name, baseUrl: row.base_url }));
};

export interface CatalogResource {
  readonly document: NodeContent;
  readonly contentHash: string;
  readonly lastModified: string;
}

/**
 * `resources/read` for `cogitave://{type}/{id}` of a catalog node: the node's canonical
 * content (its edges to nodes outside the scope left out), with the hash and time the
 * resource index holds for it.
 */
export const readCatalogResource = async (
  db: Queryable,
  scope: ReadScope,
  type: string,
  id: string,
): Promise<CatalogResource | undefined> => {
  const spec = labelForResourceType(type);
  if (!spec || spec.source !== 'catalog') return undefined;
  const node = await getCatalogNode(db, scope, id);
  if (node?.content.label !== spec.label) return undefined;
  const entry = await getResource(db, scope, node.uri);
  if (!entry) return undefined;
  return {
    document: node.content,
    contentHash: entry.contentHash,
    lastModified: entry.lastModified,
  };
};
