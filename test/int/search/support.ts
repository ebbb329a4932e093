import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import { encodePosition } from '../../../services/event-store/position.js';
import { createLogger, type Logger } from '../../../services/runtime/logger.js';
import { projectionMigrationSets } from '../../../projections/runner.js';
import type { ChangeNotice } from '../../../projections/change-payload.js';
import { createChangeFeed, type ChangeFeed } from '../../../projections/change-feed.js';
import { createLsaEmbedder } from '../../../services/search/lsa.js';
import { createSearchService, type SearchService } from '../../../services/search/service.js';
import { resourceUri } from '../../../projections/resources.js';
import { labelSpec } from '../../../services/catalog/vocabulary.js';
import { createThrowawayDatabase } from '../../support/postgres.js';

export const silentLogger: Logger = createLogger('silent');

export interface CatalogBed {
  readonly database: Database;
  close(): Promise<void>;
}

/** A throwaway server database with the catalog read model's tables. */
export const openCatalogBed = async (label: string): Promise<CatalogBed> => {
  const throwaway = await createThrowawayDatabase(label);
  const database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: 'memory://',
    poolSize: 4,
    logger: silentLogger,
  });
  await migrate(
    database.pool,
    [
      ...projectionMigrationSets([]),
      {
        owner: 'projection-catalog',
        directory: new URL('../../../services/catalog/read-model/migrations/', import.meta.url),
      },
    ],
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
  readonly title: string;
  readonly summary?: string;
  readonly body?: string;
  readonly product?: string | null;
  readonly monikers?: readonly string[];
  readonly attributes?: Record<string, unknown>;
  /** The page across versions (its site path without the version folder). */
  readonly page?: string | null;
}

/** Inserts or replaces catalog nodes, as the catalog projection would. */
export const upsertNodes = async (database: Database, nodes: readonly NodeRow[]): Promise<void> => {
  for (const node of nodes) {
    await database.pool.query(
      `INSERT INTO read_model.catalog_nodes
         (uid, label, title, summary, body, product, monikers, attributes, page, content_hash, last_modified, revision, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'hash', '2026-01-05T09:00:00Z', 0, '0')
       ON CONFLICT (uid) DO UPDATE SET label = EXCLUDED.label, title = EXCLUDED.title,
         summary = EXCLUDED.summary, body = EXCLUDED.body, product = EXCLUDED.product,
         monikers = EXCLUDED.monikers, attributes = EXCLUDED.attributes, page = EXCLUDED.page`,
      [
        node.uid,
        node.label,
        node.title,
        node.summary ?? '',
        node.body ?? '',
        node.product ?? null,
        node.monikers ?? ['latest'],
        JSON.stringify(node.attributes ?? {}),
        node.page ?? null,
      ],
    );
  }
};

export const insertEdges = async (
  database: Database,
  edges: readonly { source: string; type: string; target: string }[],
): Promise<void> => {
  for (const edge of edges) {
    await database.pool.query(
      `INSERT INTO read_model.catalog_edges (source_uid, edge_type, target_uid, origin)
       VALUES ($1, $2, $3, 'frontMatter')`,
      [edge.source, edge.type, edge.target],
    );
  }
};

export const deleteNodes = async (database: Database, uids: readonly string[]): Promise<void> => {
  await database.pool.query('DELETE FROM read_model.catalog_edges WHERE source_uid = ANY($1)', [
    uids,
  ]);
  await database.pool.query('DELETE FROM read_model.catalog_nodes WHERE uid = ANY($1)', [uids]);
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
export const startSearch = async (bed: CatalogBed): Promise<SearchBed> => {
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
