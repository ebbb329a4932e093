import type { Queryable } from '../../database/queryable.js';
import type { NodeFields } from '../content.js';
import { CATALOG_EDGES, CATALOG_NODES, nodeFieldsOf, type NodeTableRow } from './tables.js';

/**
 * Whole-catalog reads for the search indexes: every node of a kind (or some by uid) with its
 * text, and the edges between them. Unscoped on purpose: the indexes hold the whole catalog
 * and each search filters its hits by the caller's scope.
 */

/** A catalog node as the search index reads it. */
export interface CatalogIndexNode extends NodeFields {
  readonly lastModified: string;
  /** The page across versions (its site path without the version folder); null: none. */
  readonly page: string | null;
  readonly path: string | null;
  readonly sections: readonly { anchor: string; heading: string; level: number; offset: number }[];
}

/** An outbound edge of the catalog, as the search index reads it. */
export interface CatalogIndexEdge {
  readonly sourceUid: string;
  readonly edgeType: string;
  readonly targetUid: string;
  /** The edge touches a code sample: it belongs to the samples' index, not the docs'. */
  readonly sample: boolean;
}

type IndexNodeRow = Pick<
  NodeTableRow,
  | 'uid'
  | 'label'
  | 'title'
  | 'summary'
  | 'body'
  | 'product'
  | 'monikers'
  | 'attributes'
  | 'last_modified'
  | 'page'
  | 'path'
  | 'sections'
>;

interface IndexEdgeRow {
  source_uid: string;
  edge_type: string;
  target_uid: string;
  sample: boolean;
}

const NODE_COLUMNS =
  'uid, label, title, summary, body, product, monikers, attributes, last_modified, page, path, sections';

const toNode = (row: IndexNodeRow): CatalogIndexNode => ({
  ...nodeFieldsOf(row),
  lastModified: row.last_modified.toISOString(),
  page: row.page,
  path: row.path,
  sections: row.sections ?? [],
});

const toEdge = (row: IndexEdgeRow): CatalogIndexEdge => ({
  sourceUid: row.source_uid,
  edgeType: row.edge_type,
  targetUid: row.target_uid,
  sample: row.sample,
});

/** Which nodes a full read takes: the pages and other prose, or the code samples. */
export type NodeKind = 'docs' | 'samples';

const KIND_CONDITION: Readonly<Record<NodeKind, string>> = {
  docs: "label <> 'CodeSample'",
  samples: "label = 'CodeSample'",
};

export const loadAllCatalogNodes = async (
  db: Queryable,
  kind: NodeKind,
): Promise<CatalogIndexNode[]> =>
  (
    await db.query<IndexNodeRow>(
      `SELECT ${NODE_COLUMNS} FROM ${CATALOG_NODES} WHERE ${KIND_CONDITION[kind]} ORDER BY uid`,
    )
  ).rows.map(toNode);

export const loadCatalogNodes = async (
  db: Queryable,
  uids: readonly string[],
): Promise<CatalogIndexNode[]> =>
  (
    await db.query<IndexNodeRow>(
      `SELECT ${NODE_COLUMNS} FROM ${CATALOG_NODES} WHERE uid = ANY($1::text[]) ORDER BY uid`,
      [uids],
    )
  ).rows.map(toNode);

// `sample`: the edge touches a code sample (its source or its target is one).
const EDGE_COLUMNS = `e.source_uid, e.edge_type, e.target_uid,
  EXISTS (SELECT 1 FROM ${CATALOG_NODES} n
           WHERE n.uid IN (e.source_uid, e.target_uid) AND n.label = 'CodeSample') AS sample`;

export const loadAllCatalogEdges = async (db: Queryable): Promise<CatalogIndexEdge[]> =>
  (
    await db.query<IndexEdgeRow>(
      `SELECT ${EDGE_COLUMNS} FROM ${CATALOG_EDGES} e
        ORDER BY e.source_uid, e.edge_type, e.ordinal, e.target_uid`,
    )
  ).rows.map(toEdge);

export const loadCatalogEdges = async (
  db: Queryable,
  sourceUids: readonly string[],
): Promise<CatalogIndexEdge[]> =>
  (
    await db.query<IndexEdgeRow>(
      `SELECT ${EDGE_COLUMNS} FROM ${CATALOG_EDGES} e
        WHERE e.source_uid = ANY($1::text[]) ORDER BY e.source_uid, e.edge_type, e.ordinal, e.target_uid`,
      [sourceUids],
    )
  ).rows.map(toEdge);
