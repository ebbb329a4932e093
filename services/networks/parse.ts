import { z } from 'zod';
import type { RecordedEvent } from '../event-store/types.js';
import { networkStreamId, type NetworkEvent } from './events.js';
import { eventDataParser } from '../../projections/event-data.js';

/** The data of a stored Network event, checked before it is applied (see `eventDataParser`). */
const name = z.string().min(1);
const id = z.string().min(1);
const attributes = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

const node = z.looseObject({ nodeId: id, data: z.unknown(), attributes });
const edge = z.looseObject({
  edgeId: z.int().positive(),
  source: id,
  target: id,
  weight: z.number(),
  attributes,
});

const schemas = {
  NetworkCreated: z.looseObject({
    networkName: name,
    description: z.string().nullable(),
    createdBy: z.string(),
  }),
  NetworkNodeAdded: node.extend({ networkName: name }),
  NetworkEdgeAdded: edge.extend({ networkName: name }),
  NetworkNodesAdded: z.looseObject({ networkName: name, nodes: z.array(node).min(1) }),
  NetworkEdgesAdded: z.looseObject({ networkName: name, edges: z.array(edge).min(1) }),
} satisfies Record<NetworkEvent['type'], z.ZodType>;

const parseData = eventDataParser('Network', schemas);

/** The event as a typed Network event of its own stream; throws with the offending fields. */
export const parseNetworkEvent = (event: RecordedEvent): NetworkEvent => {
  const typed = { type: event.type, data: parseData(event) } as NetworkEvent;
  if (event.streamId !== networkStreamId(typed.data.networkName)) {
    throw new Error(
      `${event.type} names network ${typed.data.networkName} but is stored on stream ${event.streamId}`,
    );
  }
  return typed;
};
