import type { NodeFields, NodeSection } from '../content.js';
import {
  productInScopeSql,
  scopeSqlValues,
  typeInScopeSql,
  type ReadScope,
} from '../../access/grants.js';
import { labelsInScope } from '../vocabulary.js';

/**
 * The catalog read model's tables as its readers name them (qualified; the projection names
 * them unqualified so a shadow schema rebuilds with the same code), the one type of their
 * rows, and the scope condition every read compiles in. Only `services/catalog/read-model/`
 * writes SQL over these tables: search, graph query and the catalog read service call its
 * typed queries (or, for the graph query's compiler, take its names from here).
 */
export const CATALOG_NODES = 'read_model.catalog_nodes';
export const CATALOG_EDGES = 'read_model.catalog_edges';
export const CATALOG_SOURCES = 'read_model.catalog_sources';

/** A row of `catalog_nodes` as `pg` returns it; a query selects some of its columns. */
export interface NodeTableRow {
  uid: string;
  label: string;
  title: string;
  summary: string;
  body: string;
  product: string | null;
  monikers: string[];
  attributes: Record<string, unknown>;
  source_path: string | null;
  source: string | null;
  path: string | null;
  page: string | null;
  sections: NodeSection[] | null;
  content_hash: string;
  last_modified: Date;
  /** bigint, as text. */
  revision: string;
}

/** The node fields every view shares, from a row (as the events carried them). */
export const nodeFieldsOf = (row: NodeFields): NodeFields => ({
  uid: row.uid,
  label: row.label,
  title: row.title,
  summary: row.summary,
  body: row.body,
  product: row.product,
  monikers: row.monikers,
  attributes: row.attributes,
});

/** A row of `catalog_edges` as `pg` returns it. */
export interface EdgeTableRow {
  source_uid: string;
  edge_type: string;
  target_uid: string;
  ordinal: number;
  origin: string;
  anchor: string | null;
}

/** The scope's bind values: catalog labels it may read and products (null: any). */
export const scopeValues = (scope: ReadScope): [string[] | null, string[] | null] => [
  labelsInScope(scope, 'catalog'),
  scopeSqlValues(scope).products,
];

/** The condition that node `alias` is in the scope bound at `$labels`, `$products`. */
export const nodeInScope = (alias: string, labels: number, products: number): string =>
  `${typeInScopeSql(`${alias}.label`, `$${labels}`)} AND ${productInScopeSql(`${alias}.product`, `$${products}`)}`;
