import { oneLine } from '../../../projections/one-line.js';
import type { MigrationSet } from '../../database/migrate.js';
import type { RecordedEvent } from '../../event-store/types.js';
import { NETWORK_EVENT_TYPES, NETWORK_STREAM_PREFIX } from '../events.js';
import {
  resourcesTable,
  writeResources,
  type ResourceWrite,
} from '../../../projections/resources.js';
import type {
  Projection,
  ProjectionTransaction,
  ResourceChanges,
} from '../../../projections/types.js';
import { parseNetworkEvent } from '../parse.js';
import {
  EDGE_COLUMNS,
  fromNetworkRow,
  NETWORK_COLUMNS,
  NODE_COLUMNS,
  toNetworkRow,
  type NetworkRow,
} from './rows.js';
import { addedNodes, foldNetworkBatch, type FoldingSummary, type NetworkBatch } from './fold.js';
import { NETWORK_RESOURCE_TYPE, networkDocument, type NetworkSummary } from './state.js';

export const NETWORKS_PROJECTION = 'networks';

export const networksMigrations: MigrationSet = {
  owner: 'projection-networks',
  directory: new URL('./migrations/', import.meta.url),
};

const MAX_TITLE = 200;

const titleOf = (summary: NetworkSummary): string => {
  const title = summary.description ? `${summary.name}: ${summary.description}` : summary.name;
  return oneLine(title, MAX_TITLE);
};

const columns = (names: readonly string[]): string => names.join(', ');

const loadNetworks = async (
  tx: ProjectionTransaction,
  names: readonly string[],
): Promise<Map<string, FoldingSummary>> => {
  const result = await tx.query<NetworkRow>(
    `SELECT ${columns(NETWORK_COLUMNS)} FROM networks WHERE name = ANY($1::text[])`,
    [names],
  );
  return new Map(result.rows.map((row) => [row.name, fromNetworkRow(row)]));
};

/** Which of these (network, node) pairs are already rows, as `network\0node` keys. */
const loadExistingNodes = async (
  tx: ProjectionTransaction,
  pairs: readonly (readonly [string, string])[],
): Promise<Set<string>> => {
  if (pairs.length === 0) return new Set();
  // One primary-key probe per pair. As a plain join the planner, going by statistics taken
  // while the table was small, hashed a sequential scan of every node of every network.
  const result = await tx.query<{ network: string; node_id: string }>(
    `SELECT n.network, n.node_id
       FROM unnest($1::text[], $2::text[]) AS p(network, node_id),
            LATERAL (SELECT network, node_id FROM network_nodes
                      WHERE network = p.network AND node_id = p.node_id OFFSET 0) AS n`,
    [pairs.map(([network]) => network), pairs.map(([, node]) => node)],
  );
  return new Set(result.rows.map((row) => `${row.network}\0${row.node_id}`));
};

const insertRows = async (
  tx: ProjectionTransaction,
  table: string,
  names: readonly string[],
  rows: readonly object[],
): Promise<void> => {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ${table} (${columns(names)})
     SELECT ${columns(names)} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`,
    [JSON.stringify(rows)],
  );
};

/**
 * A batch is folded in memory: the touched networks (and which of the batch's nodes already
 * exist) are read once, every event is folded in log order, then networks, nodes, edges and
 * resources are written with one statement each. The summaries are the batch's own copies,
 * changed in place: a copy per event cost more than the rest of a node's fold.
 */
const apply = async (
  events: readonly RecordedEvent[],
  tx: ProjectionTransaction,
): Promise<ResourceChanges> => {
  const parsed = events.map((recorded) => ({ recorded, event: parseNetworkEvent(recorded) }));
  const names = [...new Set(parsed.map(({ event }) => event.data.networkName))];
  const summaries = await loadNetworks(tx, names);
  const existed = new Set(summaries.keys());
  const seenNodes = await loadExistingNodes(
    tx,
    parsed.flatMap(({ event }) =>
      addedNodes(event).map((node) => [event.data.networkName, node.nodeId] as const),
    ),
  );
  const batch: NetworkBatch = { summaries, seenNodes, nodes: [], edges: [] };
  foldNetworkBatch(batch, parsed);

  const touched = names.map((name) => summaries.get(name)).filter((s) => s !== undefined);
  const updatable = NETWORK_COLUMNS.filter((column) => column !== 'name');
  await tx.query(
    `INSERT INTO networks (${columns(NETWORK_COLUMNS)})
     SELECT ${columns(NETWORK_COLUMNS)} FROM jsonb_populate_recordset(NULL::networks, $1::jsonb)
     ON CONFLICT (name) DO UPDATE SET (${columns(updatable)}) =
       ROW(${updatable.map((column) => `EXCLUDED.${column}`).join(', ')})`,
    [JSON.stringify(touched.map(toNetworkRow))],
  );
  await insertRows(tx, 'network_nodes', NODE_COLUMNS, batch.nodes);
  // An edge id seen twice means the log and the read model disagree: the insert fails and the
  // projection stops, rather than guess.
  await insertRows(tx, 'network_edges', EDGE_COLUMNS, batch.edges);
  const resources: ResourceWrite[] = touched.map((summary) => ({
    uri: summary.uri,
    type: NETWORK_RESOURCE_TYPE,
    product: null,
    title: titleOf(summary),
    document: networkDocument(summary),
    lastModified: summary.updatedAt,
    position: summary.lastPosition,
    created: !existed.has(summary.name),
  }));
  return writeResources(tx, NETWORKS_PROJECTION, resources);
};

/** The Networks read model: `networks`, `network_nodes`, `network_edges` and their resources. */
export const networksProjection: Projection = {
  name: NETWORKS_PROJECTION,
  filter: { streamPrefixes: [NETWORK_STREAM_PREFIX], eventTypes: NETWORK_EVENT_TYPES },
  migrations: networksMigrations,
  tables: [
    { name: 'networks', orderBy: ['name'] },
    { name: 'network_nodes', orderBy: ['network', 'node_id'] },
    { name: 'network_edges', orderBy: ['network', 'edge_id'] },
    resourcesTable(NETWORKS_PROJECTION),
  ],
  apply,
};
