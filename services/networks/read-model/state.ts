import type { Position } from '../../event-store/types.js';
import { resourceUri } from '../../../projections/resources.js';

/** The resource type of networks: `cogitave://network/<name>`. */
export const NETWORK_RESOURCE_TYPE = 'network';

export const networkUri = (name: string): string => resourceUri(NETWORK_RESOURCE_TYPE, name);

/** One network's summary row, as the projection folds it. */
export interface NetworkSummary {
  readonly name: string;
  readonly uri: string;
  readonly description: string | null;
  readonly createdBy: string;
  /** ISO-8601 UTC (event time: metadata `at`). */
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly nodeCount: number;
  readonly edgeCount: number;
  /** Stream revision of the last applied event. */
  readonly version: number;
  readonly lastPosition: Position;
}

/** Normalised so a timestamp read back from a timestamptz column compares equal. */
export const isoTime = (at: string | Date): string => new Date(at).toISOString();

/**
 * The JSON document of the network resource: the summary only, never the nodes and edges,
 * so a 100k-node network stays cheap to hash on every change. Nodes and neighbours are read
 * with the `network_*` tools.
 */
export interface NetworkDocument {
  readonly name: string;
  readonly uri: string;
  readonly description: string | null;
  readonly nodeCount: number;
  readonly edgeCount: number;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const networkDocument = (summary: NetworkSummary): NetworkDocument => ({
  name: summary.name,
  uri: summary.uri,
  description: summary.description,
  nodeCount: summary.nodeCount,
  edgeCount: summary.edgeCount,
  createdBy: summary.createdBy,
  createdAt: summary.createdAt,
  updatedAt: summary.updatedAt,
});
