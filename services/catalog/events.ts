import { z } from 'zod';
import { nodeContentSchema, type NodeContent } from './content.js';

/**
 * The catalog's events, on stream `node-<uid>`. Each carries the node's full canonical content
 * and its hash, so a projection (or an auditor) never needs an earlier event to know the node.
 * Facts, never renamed: add a new type (or an optional field) instead.
 */
export const NODE_STREAM_PREFIX = 'node-';
export const nodeStreamId = (uid: string): string => `${NODE_STREAM_PREFIX}${uid}`;

export interface NodeEventData {
  readonly uid: string;
  readonly contentHash: string;
  readonly content: NodeContent;
}

export interface NodePublished {
  readonly type: 'NodePublished';
  readonly data: NodeEventData;
}

export interface NodeRevised {
  readonly type: 'NodeRevised';
  readonly data: NodeEventData & { readonly previousContentHash: string };
}

/** The content is the node as it was when it left the corpus. */
export interface NodeRetired {
  readonly type: 'NodeRetired';
  readonly data: NodeEventData & { readonly reason: string };
}

export type NodeEvent = NodePublished | NodeRevised | NodeRetired;

export const NODE_EVENT_TYPES: readonly NodeEvent['type'][] = [
  'NodePublished',
  'NodeRevised',
  'NodeRetired',
];

const base = { uid: z.string(), contentHash: z.string(), content: nodeContentSchema };

export const nodeEventSchemas = {
  NodePublished: z.object(base),
  NodeRevised: z.object({ ...base, previousContentHash: z.string() }),
  NodeRetired: z.object({ ...base, reason: z.string() }),
} as const satisfies Record<NodeEvent['type'], z.ZodType>;

export const isNodeEventType = (type: string): type is NodeEvent['type'] =>
  (NODE_EVENT_TYPES as readonly string[]).includes(type);

/** Parses a stored event's data (for projections and the ingest's fold). */
export const parseNodeEvent = (type: string, data: unknown): NodeEvent => {
  if (!isNodeEventType(type)) throw new TypeError(`not a catalog node event: ${type}`);
  return { type, data: nodeEventSchemas[type].parse(data) } as NodeEvent;
};
