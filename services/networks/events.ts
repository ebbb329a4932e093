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

export type NetworkEvent = NetworkCreated | NetworkNodeAdded | NetworkEdgeAdded;

export type NetworkEventType = NetworkEvent['type'];

export const NETWORK_EVENT_TYPES: readonly NetworkEventType[] = [
  'NetworkCreated',
  'NetworkNodeAdded',
  'NetworkEdgeAdded',
];
