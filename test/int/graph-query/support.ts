import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate, type MigrationSet } from '../../../services/database/migrate.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { projectionMigrationSets } from '../../../projections/runner.js';
import { requestsMigrations } from '../../../services/requests/read-model/projection.js';
import { createThrowawayDatabase } from '../../support/postgres.js';

const catalogMigrations: MigrationSet = {
  owner: 'projection-catalog',
  directory: new URL('../../../services/catalog/read-model/migrations/', import.meta.url),
};

export interface GraphBed {
  readonly database: Database;
  close(): Promise<void>;
}

/** A throwaway server database with the read model's tables (catalog and requests). */
export const openGraphBed = async (label: string): Promise<GraphBed> => {
  const logger = createLogger('silent');
  const throwaway = await createThrowawayDatabase(label);
  const database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: 'memory://',
    poolSize: 4,
    logger,
  });
  await migrate(
    database.pool,
    [...projectionMigrationSets([]), requestsMigrations, catalogMigrations],
    logger,
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
  readonly title?: string;
  readonly product?: string | null;
  readonly monikers?: readonly string[];
  readonly attributes?: Record<string, unknown>;
}

export const insertNodes = async (database: Database, nodes: readonly NodeRow[]): Promise<void> => {
  if (nodes.length === 0) return;
  await database.pool.query(
    `INSERT INTO read_model.catalog_nodes
       (uid, label, title, summary, product, monikers, attributes, content_hash, last_modified, revision, position)
     SELECT n.uid, n.label, n.title, '', n.product, n.monikers, n.attributes, 'h', now(), 0, '0'
       FROM jsonb_to_recordset($1::jsonb)
         AS n(uid text, label text, title text, product text, monikers text[], attributes jsonb)`,
    [
      JSON.stringify(
        nodes.map((node) => ({
          uid: node.uid,
          label: node.label,
          title: node.title ?? node.uid,
          product: node.product ?? null,
          monikers: node.monikers ?? ['latest'],
          attributes: node.attributes ?? {},
        })),
      ),
    ],
  );
};

export type EdgeRow = readonly [source: string, type: string, target: string];

export const insertEdges = async (database: Database, edges: readonly EdgeRow[]): Promise<void> => {
  if (edges.length === 0) return;
  await database.pool.query(
    `INSERT INTO read_model.catalog_edges (source_uid, edge_type, target_uid, ordinal, origin)
     SELECT e.s, e.t, e.d, 0, 'frontMatter' FROM jsonb_to_recordset($1::jsonb) AS e(s text, t text, d text)`,
    [JSON.stringify(edges.map(([s, t, d]) => ({ s, t, d })))],
  );
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
