import type { Queryable } from '../database/queryable.js';
import type { CatalogEdge, CatalogNode } from './documents.js';

/** Typed reads of the catalog read model for the search index. */
interface NodeRow {
  uid: string;
  label: string;
  title: string;
  summary: string;
  body: string;
  product: string | null;
  monikers: string[];
  attributes: Record<string, unknown> | null;
  last_modified: Date;
  page: string | null;
  path: string | null;
  sections: CatalogNode['sections'] | null;
}

interface EdgeRow {
  source_uid: string;
  edge_type: string;
  target_uid: string;
  sample: boolean;
}

const NODE_COLUMNS =
  'uid, label, title, summary, body, product, monikers, attributes, last_modified, page, path, sections';

const toNode = (row: NodeRow): CatalogNode => ({
  uid: row.uid,
  label: row.label,
  title: row.title,
  summary: row.summary,
  body: row.body,
  product: row.product,
  monikers: row.monikers,
  attributes: row.attributes ?? {},
  lastModified: row.last_modified.toISOString(),
  page: row.page,
  path: row.path,
  sections: row.sections ?? [],
});

const toEdge = (row: EdgeRow): CatalogEdge => ({
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

export const loadAllCatalogNodes = async (db: Queryable, kind: NodeKind): Promise<CatalogNode[]> =>
  (
    await db.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM read_model.catalog_nodes WHERE ${KIND_CONDITION[kind]} ORDER BY uid`,
    )
  ).rows.map(toNode);

export const loadCatalogNodes = async (
  db: Queryable,
  uids: readonly string[],
): Promise<CatalogNode[]> =>
  (
    await db.query<NodeRow>(
      `SELECT ${NODE_COLUMNS} FROM read_model.catalog_nodes WHERE uid = ANY($1::text[]) ORDER BY uid`,
      [uids],
    )
  ).rows.map(toNode);

// `sample`: the edge touches a code sample (its source or its target is one).
const EDGE_COLUMNS = `e.source_uid, e.edge_type, e.target_uid,
  EXISTS (SELECT 1 FROM read_model.catalog_nodes n
           WHERE n.uid IN (e.source_uid, e.target_uid) AND n.label = 'CodeSample') AS sample`;

export const loadAllCatalogEdges = async (db: Queryable): Promise<CatalogEdge[]> =>
  (
    await db.query<EdgeRow>(
      `SELECT ${EDGE_COLUMNS} FROM read_model.catalog_edges e
        ORDER BY e.source_uid, e.edge_type, e.ordinal, e.target_uid`,
    )
  ).rows.map(toEdge);

export const loadCatalogEdges = async (
  db: Queryable,
  sourceUids: readonly string[],
): Promise<CatalogEdge[]> =>
  (
    await db.query<EdgeRow>(
      `SELECT ${EDGE_COLUMNS} FROM read_model.catalog_edges e
        WHERE e.source_uid = ANY($1::text[]) ORDER BY e.source_uid, e.edge_type, e.ordinal, e.target_uid`,
      [sourceUids],
    )
  ).rows.map(toEdge);
