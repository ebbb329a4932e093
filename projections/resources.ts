import { canonicalJson, sha256Hex } from '../services/event-store/hash-chain.js';
import type { Position } from '../services/event-store/types.js';
import {
  productInScopeSql,
  scopeSqlValues,
  typeInScopeSql,
  type ReadScope,
} from '../services/access/grants.js';
import type { Queryable } from '../services/database/queryable.js';
import { CopyText } from '../services/database/copy.js';
import type { BulkRows, ProjectionTable, ProjectionTransaction, ResourceChanges } from './types.js';

/**
 * The resource index (`read_model.resources`): one row per MCP resource, written by the
 * projection that owns the resource in the same transaction as its own rows.
 */
export const RESOURCE_SCHEME = 'cogitave';

/** `cogitave://request/` */
export const collectionUri = (type: string): string => `${RESOURCE_SCHEME}://${type}/`;

/** `cogitave://request/req-2026-0001` */
export const resourceUri = (type: string, id: string): string =>
  `${collectionUri(type)}${encodeURIComponent(id)}`;

/** sha256 (hex) of the canonical JSON (RFC 8785) of a resource's document. */
export const resourceContentHash = (document: unknown): string =>
  sha256Hex(canonicalJson(document));

export interface ResourceWrite {
  readonly uri: string;
  readonly type: string;
  readonly product: string | null;
  readonly title: string;
  /** The JSON document `resources/read` serves; its hash is stored. */
  readonly document: unknown;
  /** ISO-8601 (event time of the last change). */
  readonly lastModified: string;
  /** Position of the last event that changed it. */
  readonly position: Position;
  /** The resource did not exist before this batch: its collection's membership changed. */
  readonly created: boolean;
}

/** The index's rows owned by a projection, for its `tables` list. */
export const resourcesTable = (projection: string): ProjectionTable => ({
  name: 'resources',
  orderBy: ['uri'],
  ownedWhere: { column: 'projection', equals: projection },
});

const UPSERT_RESOURCES = `INSERT INTO resources
    (uri, type, collection, product, title, content_hash, last_modified, projection, position)
  SELECT uri, type, collection, product, title, content_hash, last_modified, projection, position
    FROM json_populate_recordset(NULL::resources, $1::json)
  ON CONFLICT (uri) DO UPDATE SET
    type = EXCLUDED.type, collection = EXCLUDED.collection, product = EXCLUDED.product,
    title = EXCLUDED.title, content_hash = EXCLUDED.content_hash,
    last_modified = EXCLUDED.last_modified, projection = EXCLUDED.projection,
    position = EXCLUDED.position`;

/** The index's columns, in table order. */
export const RESOURCE_COLUMNS = [
  'uri',
  'type',
  'collection',
  'product',
  'title',
  'content_hash',
  'last_modified',
  'projection',
  'position',
] as const;

type ResourceRow = Record<Exclude<(typeof RESOURCE_COLUMNS)[number], 'product'>, string> & {
  readonly product: string | null;
};

/** A write as the index row it becomes (its document hashed). */
const resourceRow = (projection: string, write: ResourceWrite): ResourceRow => ({
  uri: write.uri,
  type: write.type,
  collection: collectionUri(write.type),
  product: write.product,
  title: write.title,
  content_hash: resourceContentHash(write.document),
  last_modified: write.lastModified,
  projection,
  position: write.position,
});

/** Resource writes as index rows for a bulk rebuild (`BulkRebuild.finish`). */
export const resourceBulkRows = (projection: string, writes: Iterable<ResourceWrite>): BulkRows => {
  const text = new CopyText(RESOURCE_COLUMNS);
  for (const write of writes) {
    text.addRow(resourceRow(projection, write));
  }
  return { table: 'resources', columns: RESOURCE_COLUMNS, rows: text.rows, chunks: text.chunks() };
};

/** Resource writes as index rows (content hashed) with the changes they announce. */
export interface PreparedResources {
  /** The rows as one JSON text, ready for `upsertResources`. */
  readonly json: string;
  readonly changes: ResourceChanges;
}

/**
 * The CPU half of `writeResources`: hashes each document and serialises the rows. A handler
 * may run it while another of its statements executes, then call `upsertResources`.
 */
export const prepareResources = (
  projection: string,
  writes: readonly ResourceWrite[],
): PreparedResources => {
  const rows = writes.map((write) => resourceRow(projection, write));
  return {
    json: JSON.stringify(rows),
    changes: {
      uris: rows.map((row) => row.uri),
      products: Object.fromEntries(rows.map((row) => [row.uri, row.product])),
      collections: [
        ...new Set(rows.filter((_, i) => writes[i]?.created).map((row) => row.collection)),
      ],
    },
  };
};

/** Upserts prepared resources (one statement) and returns what the change feed must announce. */
export const upsertResources = async (
  tx: ProjectionTransaction,
  prepared: PreparedResources,
): Promise<ResourceChanges> => {
  if (prepared.changes.uris.length === 0) return prepared.changes;
  await tx.query(UPSERT_RESOURCES, [prepared.json]);
  return prepared.changes;
};

/** Upserts resources (one statement) and reports what the change feed must announce. */
export const writeResources = async (
  tx: ProjectionTransaction,
  projection: string,
  writes: readonly ResourceWrite[],
): Promise<ResourceChanges> => {
  if (writes.length === 0) return { uris: [], collections: [] };
  return upsertResources(tx, prepareResources(projection, writes));
};

/** Deletes a projection's resources by URI (a retired node, a node that changed type). */
export const deleteResources = async (
  tx: ProjectionTransaction,
  projection: string,
  uris: readonly string[],
): Promise<void> => {
  if (uris.length === 0) return;
  await tx.query('DELETE FROM resources WHERE projection = $1 AND uri = ANY($2::text[])', [
    projection,
    uris,
  ]);
};

export interface ResourceEntry {
  readonly uri: string;
  readonly type: string;
  readonly product: string | null;
  readonly title: string;
  readonly contentHash: string;
  readonly lastModified: string;
}

interface ResourceEntryRow {
  uri: string;
  type: string;
  product: string | null;
  title: string;
  content_hash: string;
  last_modified: Date;
}

const toEntry = (row: ResourceEntryRow): ResourceEntry => ({
  uri: row.uri,
  type: row.type,
  product: row.product,
  title: row.title,
  contentHash: row.content_hash,
  lastModified: row.last_modified.toISOString(),
});

export interface ListResourcesOptions {
  readonly type?: string | undefined;
  readonly product?: string | undefined;
  /** Exclusive: the last URI of the previous page. */
  readonly afterUri?: string | undefined;
  readonly limit: number;
}

/** The condition that a row is in the scope bound at `$types`, `$products`. */
const inScope = (types: number, products: number): string =>
  `${typeInScopeSql('type', `$${types}`)} AND ${productInScopeSql('product', `$${products}`)}`;

const scopeValues = (scope: ReadScope): [string[] | null, string[] | null] => {
  const { types, products } = scopeSqlValues(scope);
  return [types, products];
};

/** A page of the index in URI order (for `resources/list`): only the scope's rows. */
export const listResources = async (
  db: Queryable,
  scope: ReadScope,
  options: ListResourcesOptions,
): Promise<ResourceEntry[]> => {
  const result = await db.query<ResourceEntryRow>(
    `SELECT uri, type, product, title, content_hash, last_modified FROM read_model.resources
      WHERE ($1::text IS NULL OR type = $1) AND ($2::text IS NULL OR product = $2)
        AND ($3::text IS NULL OR uri > $3) AND ${inScope(5, 6)}
      ORDER BY uri LIMIT $4`,
    [
      options.type ?? null,
      options.product ?? null,
      options.afterUri ?? null,
      options.limit,
      ...scopeValues(scope),
    ],
  );
  return result.rows.map(toEntry);
};

/** The index row of a URI; undefined when there is none or the scope hides it. */
export const getResource = async (
  db: Queryable,
  scope: ReadScope,
  uri: string,
): Promise<ResourceEntry | undefined> => {
  const result = await db.query<ResourceEntryRow>(
    `SELECT uri, type, product, title, content_hash, last_modified FROM read_model.resources
      WHERE uri = $1 AND ${inScope(2, 3)}`,
    [uri, ...scopeValues(scope)],
  );
  const row = result.rows[0];
  return row ? toEntry(row) : undefined;
};
