import { z } from 'zod';
import type { RecordedEvent } from '../../services/event-store/types.js';
import { networkStreamId, type NetworkEvent } from '../../services/networks/events.js';

/**
 * Checks the data of a stored Network event before it is applied: a malformed event stops
 * the projection with a message naming the field rather than writing a half-empty row.
 */
const name = z.string().min(1);
const id = z.string().min(1);
const attributes = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

const schemas = {
  NetworkCreated: z.looseObject({
    networkName: name,
    description: z.string().nullable(),
    createdBy: z.string(),
  }),
  NetworkNodeAdded: z.looseObject({
    networkName: name,
    nodeId: id,
    data: z.unknown(),
    attributes,
  }),
  NetworkEdgeAdded: z.looseObject({
    networkName: name,
    edgeId: z.int().positive(),
    source: id,
    target: id,
    weight: z.number(),
    attributes,
  }),
} satisfies Record<NetworkEvent['type'], z.ZodType>;

const isNetworkEventType = (type: string): type is NetworkEvent['type'] => type in schemas;

/** The event as a typed Network event of its own stream; throws with the offending fields. */
export const parseNetworkEvent = (event: RecordedEvent): NetworkEvent => {
  if (!isNetworkEventType(event.type)) throw new Error(`${event.type} is not a Network event`);
  const parsed = schemas[event.type].safeParse(event.data);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`)
      .join('; ');
    throw new Error(`${event.type} has invalid data (${issues})`);
  }
  const typed = { type: event.type, data: parsed.data } as NetworkEvent;
  if (event.streamId !== networkStreamId(typed.data.networkName)) {
    throw new Error(
      `${event.type} names network ${typed.data.networkName} but is stored on stream ${event.streamId}`,
    );
  }
  return typed;
};
