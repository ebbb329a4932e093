import type { Position } from '../../event-store/types.js';
import { isoTime, type NetworkSummary } from './state.js';

/** A `read_model.networks` row as `pg` returns it (and, with ISO strings, as it is written). */
export interface NetworkRow {
  name: string;
  uri: string;
  description: string | null;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
  node_count: number;
  edge_count: number;
  version: string | number;
  last_position: string;
}

export const NETWORK_COLUMNS = [
  'name',
  'uri',
  'description',
  'created_by',
  'created_at',
  'updated_at',
  'node_count',
  'edge_count',
  'version',
  'last_position',
] as const satisfies readonly (keyof NetworkRow)[];

export const toNetworkRow = (summary: NetworkSummary): NetworkRow => ({
  name: summary.name,
  uri: summary.uri,
  description: summary.description,
  created_by: summary.createdBy,
  created_at: summary.createdAt,
  updated_at: summary.updatedAt,
  node_count: summary.nodeCount,
  edge_count: summary.edgeCount,
  version: summary.version,
  last_position: summary.lastPosition,
});

export const fromNetworkRow = (row: NetworkRow): NetworkSummary => ({
  name: row.name,
  uri: row.uri,
  description: row.description,
  createdBy: row.created_by,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
  nodeCount: row.node_count,
  edgeCount: row.edge_count,
  version: Number(row.version),
  lastPosition: row.last_position as Position,
});

export const NODE_COLUMNS = [
  'network',
  'node_id',
  'ordinal',
  'data',
  'attributes',
  'added_by',
  'added_at',
] as const;

export const EDGE_COLUMNS = [
  'network',
  'edge_id',
  'source',
  'target',
  'weight',
  'attributes',
  'added_by',
  'added_at',
] as const;
