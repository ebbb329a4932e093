/**
 * The Network aggregate's events, stored on stream `network-<name>`. Facts, never renamed: add
 * a new type (or an optional field) instead. Who and when are in the event metadata (actor,
 * at); `createdBy` repeats the actor because the network's summary shows it.
 */
export const NETWORK_STREAM_PREFIX = 'network-';

export const networkStreamId = (networkName: string): string =>
  `${NETWORK_STREAM_PREFIX}${networkName}`;

/** A scalar attribute value: attributes are a flat key-value object. */
export type AttributeValue = string | number | boolean | null;

export type Attributes = Readonly<Record<string, AttributeValue>>;

export interface NetworkCreated {
  readonly type: 'NetworkCreated';
  readonly data: {
    readonly networkName: string;
    readonly description: string | null;
    readonly createdBy: string;
  };
}

export interface NetworkNodeAdded {
  readonly type: 'NetworkNodeAdded';
  readonly data: {
    readonly networkName: string;
    readonly nodeId: string;
    /** Any JSON payload; null when none was given. */
    readonly data: unknown;
    readonly attributes: Attributes;
  };
}

export interface NetworkEdgeAdded {
  readonly type: 'NetworkEdgeAdded';
  readonly data: {
    readonly networkName: string;
    /** 1-based, in the order edges were added to the network; identical edges differ by it. */
    readonly edgeId: number;
    readonly source: string;
    readonly target: string;
    readonly weight: number;
    readonly attributes: Attributes;
  };
}

/** One node of a `NetworkNodesAdded`: what a `NetworkNodeAdded` carries besides the network. */
export interface AddedNode {
  readonly nodeId: string;
  /** Any JSON payload; null when none was given. */
  readonly data: unknown;
  readonly attributes: Attributes;
}

/** One edge of a `NetworkEdgesAdded`: what a `NetworkEdgeAdded` carries besides the network. */
export interface AddedEdge {
  /** 1-based, in the order edges were added to the network; identical edges differ by it. */
  readonly edgeId: number;
  readonly source: string;
  readonly target: string;
  readonly weight: number;
  readonly attributes: Attributes;
}

/**
 * The nodes one `network_add_nodes` call added, in the order of the call (only those that
 * succeeded): one event, so a call of 100 nodes writes one row of the log, not 100. It means
 * exactly what as many `NetworkNodeAdded` in a row would.
 */
export interface NetworkNodesAdded {
  readonly type: 'NetworkNodesAdded';
  readonly data: {
    readonly networkName: string;
    /** At least one. */
    readonly nodes: readonly AddedNode[];
  };
}

/** The edges one `network_add_edges` call added, with consecutive edge ids, in call order. */
export interface NetworkEdgesAdded {
  readonly type: 'NetworkEdgesAdded';
  readonly data: {
    readonly networkName: string;
    /** At least one. */
    readonly edges: readonly AddedEdge[];
  };
}

export type NetworkEvent =
  NetworkCreated | NetworkNodeAdded | NetworkEdgeAdded | NetworkNodesAdded | NetworkEdgesAdded;

export type NetworkEventType = NetworkEvent['type'];

export const NETWORK_EVENT_TYPES: readonly NetworkEventType[] = [
  'NetworkCreated',
  'NetworkNodeAdded',
  'NetworkEdgeAdded',
  'NetworkNodesAdded',
  'NetworkEdgesAdded',
];
