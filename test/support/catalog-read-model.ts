import { openDatabase, type Database } from '../../services/database/database.js';
import { migrate, type MigrationSet } from '../../services/database/migrate.js';
import { encodePosition } from '../../services/event-store/position.js';
import { createLogger, type Logger } from '../../services/runtime/logger.js';
import { projectionMigrationSets } from '../../projections/runner.js';
import type { ChangeNotice } from '../../projections/change-payload.js';
import { createChangeFeed, type ChangeFeed } from '../../projections/change-feed.js';
import { resourceUri } from '../../projections/resources.js';
import { labelSpec } from '../../services/catalog/vocabulary.js';
import { requestsMigrations } from '../../services/requests/read-model/projection.js';
import { createLsaEmbedder } from '../../services/search/lsa.js';
import { createSearchService, type SearchService } from '../../services/search/service.js';
import { createThrowawayDatabase } from './postgres.js';

/**
 * The catalog read model without its projection, for the readers of it (graph queries,
 * search): a throwaway database with the read model's tables, filled with rows as the catalog
 * and requests projections would write them.
 */

export const silentLogger: Logger = createLogger('silent');

const catalogMigrations: MigrationSet = {
  owner: 'projection-catalog',
  directory: new URL('../../services/catalog/read-model/migrations/', import.meta.url),
};

export interface ReadModelBed {
  readonly database: Database;
  close(): Promise<void>;
}

/** A throwaway server database with the catalog's and the requests' read-model tables. */
export const openReadModelBed = async (label: string): Promise<ReadModelBed> => {
  const throwaway = await createThrowawayDatabase(label);
  const database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: 'memory://',
    poolSize: 4,
    logger: silentLogger,
  });
  await migrate(
    database.pool,
    [...projectionMigrationSets([]), requestsMigrations, catalogMigrations],
    silentLogger,
  );
  return {
    database,
    close: async () => {
      await database.close();
      await throwaway.drop();
    },
  };
};

export interface NodeRow {
  readonly uid: string;
  readonly label: string;
  /** Default: the uid. */
  readonly title?: string;
  readonly summary?: string;
  readonly body?: string;
  readonly product?: string | null;
  readonly monikers?: readonly string[];
  readonly attributes?: Record<string, unknown>;
  /** The page across versions (its site path without the version folder). */
  readonly page?: string | null;
}

/** Inserts or replaces catalog nodes, as the catalog projection would (one statement). */
export const upsertNodes = async (database: Database, nodes: readonly NodeRow[]): Promise<void> => {
  if (nodes.length === 0) return;
  await database.pool.query(
    `INSERT INTO read_model.catalog_nodes
       (uid, label, title, summary, body, product, monikers, attributes, page, content_hash, last_modified, revision, position)
     SELECT n.uid, n.label, n.title, n.summary, n.body, n.product, n.monikers, n.attributes, n.page,
            'hash', '2026-01-05T09:00:00Z', 0, '0'
       FROM jsonb_to_recordset($1::jsonb) AS n(uid text, label text, title text, summary text,
         body text, product text, monikers text[], attributes jsonb, page text)
     ON CONFLICT (uid) DO UPDATE SET label = EXCLUDED.label, title = EXCLUDED.title,
       summary = EXCLUDED.summary, body = EXCLUDED.body, product = EXCLUDED.product,
       monikers = EXCLUDED.monikers, attributes = EXCLUDED.attributes, page = EXCLUDED.page`,
    [
      JSON.stringify(
        nodes.map((node) => ({
          uid: node.uid,
          label: node.label,
          title: node.title ?? node.uid,
          summary: node.summary ?? '',
          body: node.body ?? '',
          product: node.product ?? null,
          monikers: node.monikers ?? ['latest'],
          attributes: node.attributes ?? {},
          page: node.page ?? null,
        })),
      ),
    ],
  );
};

export type EdgeRow = readonly [source: string, type: string, target: string];

/** Inserts catalog edges (from front matter), as the catalog projection would. */
export const insertEdges = async (database: Database, edges: readonly EdgeRow[]): Promise<void> => {
  if (edges.length === 0) return;
  await database.pool.query(
    `INSERT INTO read_model.catalog_edges (source_uid, edge_type, target_uid, ordinal, origin)
     SELECT e.s, e.t, e.d, 0, 'frontMatter' FROM jsonb_to_recordset($1::jsonb) AS e(s text, t text, d text)`,
    [JSON.stringify(edges.map(([s, t, d]) => ({ s, t, d })))],
  );
};

export const deleteNodes = async (database: Database, uids: readonly string[]): Promise<void> => {
  await database.pool.query('DELETE FROM read_model.catalog_edges WHERE source_uid = ANY($1)', [
    uids,
  ]);
  await database.pool.query('DELETE FROM read_model.catalog_nodes WHERE uid = ANY($1)', [uids]);
};

/** A request row as the requests projection would write it (only what the graph reads matters). */
export const insertRequest = async (
  database: Database,
  request: { id: string; title: string; product: string; stage: string; status: string },
): Promise<void> => {
  await database.pool.query(
    `INSERT INTO read_model.requests (request_id, uri, title, problem, product, requester, priority,
       acceptance_criteria, links, stage, status, evidence, proposed_by, created_at, updated_at,
       version, last_position, proposals)
     VALUES ($1, 'cogitave://request/' || $1, $2, 'a problem', $3, 'someone', 'normal', '[]', '[]',
       $4, $5, '[]', 'agent:x', now(), now(), 0, '0', '[]')`,
    [request.id, request.title, request.product, request.stage, request.status],
  );
};

let sequence = 1n;
/** A change notice naming nodes by label and uid, as the catalog projection announces them. */
export const changeNotice = (nodes: readonly { label: string; uid: string }[]): ChangeNotice => ({
  projection: 'catalog',
  position: encodePosition((sequence += 1n), 0n),
  uris: nodes.map((node) => resourceUri(labelSpec(node.label)?.resourceType ?? 'doc', node.uid)),
  collections: [],
});

export interface SearchBed {
  readonly feed: ChangeFeed;
  readonly search: SearchService;
  close(): Promise<void>;
}

/** A search service over the bed's read model, following its change feed, built and ready. */
export const startSearch = async (bed: ReadModelBed): Promise<SearchBed> => {
  const feed = createChangeFeed({ database: bed.database, logger: silentLogger });
  const search = createSearchService({
    db: bed.database.pool,
    changes: feed,
    embedder: createLsaEmbedder({ dimensions: 8, minDocumentFrequency: 1 }),
    logger: silentLogger,
  });
  await search.ready();
  return {
    feed,
    search,
    close: async () => {
      await search.close();
      await feed.close();
    },
  };
};
