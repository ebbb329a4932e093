import type { Queryable } from '../../database/queryable.js';
import { resourceContentHash } from '../../../projections/resources.js';
import { fromNetworkRow, NETWORK_COLUMNS, type NetworkRow } from './rows.js';
import { isoTime, networkDocument, type NetworkDocument, type NetworkSummary } from './state.js';

/** Typed reads of the Networks read model, for the gateway's tools and resources. */

const SUMMARY = NETWORK_COLUMNS.join(', ');

export const getNetwork = async (
  db: Queryable,
  name: string,
): Promise<NetworkSummary | undefined> => {
  const result = await db.query<NetworkRow>(
    `SELECT ${SUMMARY} FROM read_model.networks WHERE name = $1`,
    [name],
  );
  const row = result.rows[0];
  return row ? fromNetworkRow(row) : undefined;
};

export interface ListNetworksOptions {
  /** Exclusive: the last name of the previous page. */
  readonly afterName?: string | undefined;
  readonly limit: number;
}

/** A page of networks in name order (bytewise, so the cursor is exact). */
export const listNetworks = async (
  db: Queryable,
  options: ListNetworksOptions,
): Promise<NetworkSummary[]> => {
  const result = await db.query<NetworkRow>(
    `SELECT ${SUMMARY} FROM read_model.networks
      WHERE ($1::text IS NULL OR name > $1) ORDER BY name LIMIT $2`,
    [options.afterName ?? null, options.limit],
  );
  return result.rows.map(fromNetworkRow);
};

export interface NetworkNode {
  readonly networkName: string;
  readonly nodeId: string;
  /** 0-based order of addition. */
  readonly ordinal: number;
  readonly data: unknown;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly addedBy: string;
  readonly addedAt: string;
}

interface NodeRow {
  network: string;
  node_id: string;
  ordinal: number;
  data: unknown;
  attributes: Record<string, unknown>;
  added_by: string;
  added_at: Date;
}

export const getNode = async (
  db: Queryable,
  networkName: string,
  nodeId: string,
): Promise<NetworkNode | undefined> => {
  const result = await db.query<NodeRow>(
    `SELECT network, node_id, ordinal, data, attributes, added_by, added_at
       FROM read_model.network_nodes WHERE network = $1 AND node_id = $2`,
    [networkName, nodeId],
  );
  const row = result.rows[0];
  return row
    ? {
        networkName: row.network,
        nodeId: row.node_id,
        ordinal: row.ordinal,
        data: row.data,
        attributes: row.attributes,
        addedBy: row.added_by,
        addedAt: isoTime(row.added_at),
      }
    : undefined;
};

/** What a neighbour lookup found: which of network and node exist, and the neighbours. */
export type NeighborLookup =
  | { readonly found: 'network_missing' }
  | { readonly found: 'node_missing' }
  | { readonly found: 'node'; readonly neighbors: readonly string[] };

/**
 * Nodes joined to `nodeId` by an outbound or an inbound edge, each once, in the order of the
 * first edge that joined them (a self-loop makes a node its own neighbour). One round trip,
 * served by the outbound and inbound indexes.
 */
export const getNeighbors = async (
  db: Queryable,
  networkName: string,
  nodeId: string,
): Promise<NeighborLookup> => {
  const result = await db.query<{
    network_exists: boolean;
    node_exists: boolean;
    neighbors: string[] | null;
  }>(
    `SELECT EXISTS (SELECT 1 FROM read_model.networks WHERE name = $1) AS network_exists,
            EXISTS (SELECT 1 FROM read_model.network_nodes
                     WHERE network = $1 AND node_id = $2) AS node_exists,
            ARRAY(
              SELECT id FROM (
                SELECT target AS id, edge_id FROM read_model.network_edges
                 WHERE network = $1 AND source = $2
                UNION ALL
                SELECT source AS id, edge_id FROM read_model.network_edges
                 WHERE network = $1 AND target = $2
              ) AS joined
              GROUP BY id ORDER BY min(edge_id)
            ) AS neighbors`,
    [networkName, nodeId],
  );
  const row = result.rows[0];
  if (!row?.network_exists) return { found: 'network_missing' };
  if (!row.node_exists) return { found: 'node_missing' };
  return { found: 'node', neighbors: row.neighbors ?? [] };
};

export interface NetworkResource {
  readonly document: NetworkDocument;
  /** The same hash the resource index holds for `cogitave://network/<name>`. */
  readonly contentHash: string;
  readonly lastModified: string;
}

/** `resources/read` of `cogitave://network/<name>`; undefined when there is no such network. */
export const readNetworkResource = async (
  db: Queryable,
  name: string,
): Promise<NetworkResource | undefined> => {
  const summary = await getNetwork(db, name);
  if (!summary) return undefined;
  const document = networkDocument(summary);
  return {
    document,
    contentHash: resourceContentHash(document),
    lastModified: summary.updatedAt,
  };
};
