import type { RecordedEvent } from '../../event-store/types.js';
import type { AddedEdge, AddedNode, NetworkEvent } from '../events.js';
import { isoTime, networkUri, type NetworkSummary } from './state.js';

/**
 * The networks read model's fold of a batch: every event, in log order, into the touched
 * networks' summaries and the node and edge rows to insert. Each switch over the event union
 * is exhaustive (`event satisfies never`), so a new network event type does not compile until
 * this read model says what it does to it.
 */

/** A summary being folded: this batch's own copy, changed in place event after event. */
export type FoldingSummary = { -readonly [K in keyof NetworkSummary]: NetworkSummary[K] };

/** The nodes an event adds: one for `NetworkNodeAdded`, all of a `NetworkNodesAdded`. */
export const addedNodes = (event: NetworkEvent): readonly AddedNode[] => {
  switch (event.type) {
    case 'NetworkNodeAdded':
      return [event.data];
    case 'NetworkNodesAdded':
      return event.data.nodes;
    case 'NetworkCreated':
    case 'NetworkEdgeAdded':
    case 'NetworkEdgesAdded':
      return [];
    default:
      return event satisfies never;
  }
};

export interface NetworkBatch {
  /** The touched networks as stored before the batch, folded in place. */
  readonly summaries: Map<string, FoldingSummary>;
  /** `network\0node` of every node that is a row already or is added by the batch. */
  readonly seenNodes: Set<string>;
  /** Rows to insert into `network_nodes` and `network_edges`. */
  readonly nodes: object[];
  readonly edges: object[];
}

interface Place {
  readonly summary: FoldingSummary;
  readonly addedBy: string;
  readonly at: string;
}

const addNodes = (batch: NetworkBatch, place: Place, added: readonly AddedNode[]): void => {
  const { summary, addedBy, at } = place;
  const name = summary.name;
  // A batch event stands for its items one after another, as single-item events would.
  for (const node of added) {
    const key = `${name}\0${node.nodeId}`;
    // A node added twice (never decided so) keeps its first row and counts once, as in evolve.
    if (batch.seenNodes.has(key)) continue;
    batch.seenNodes.add(key);
    batch.nodes.push({
      network: name,
      node_id: node.nodeId,
      ordinal: summary.nodeCount,
      data: node.data ?? null,
      attributes: node.attributes,
      added_by: addedBy,
      added_at: at,
    });
    summary.nodeCount += 1;
  }
};

const addEdges = (batch: NetworkBatch, place: Place, added: readonly AddedEdge[]): void => {
  const { summary, addedBy, at } = place;
  for (const edge of added) {
    batch.edges.push({
      network: summary.name,
      edge_id: edge.edgeId,
      source: edge.source,
      target: edge.target,
      weight: edge.weight,
      attributes: edge.attributes,
      added_by: addedBy,
      added_at: at,
    });
    summary.edgeCount += 1;
  }
};

/** Folds one event; `at` is its metadata time, normalised. */
const foldEvent = (
  batch: NetworkBatch,
  recorded: RecordedEvent,
  event: NetworkEvent,
  at: string,
): void => {
  const name = event.data.networkName;
  const bookkeeping = {
    updatedAt: at,
    version: Number(recorded.revision),
    lastPosition: recorded.position,
  };
  const summary = batch.summaries.get(name);
  if (event.type === 'NetworkCreated') {
    if (summary) throw new Error(`network ${name} was already created`);
    batch.summaries.set(name, {
      name,
      uri: networkUri(name),
      description: event.data.description,
      createdBy: event.data.createdBy,
      createdAt: at,
      nodeCount: 0,
      edgeCount: 0,
      ...bookkeeping,
    });
    return;
  }
  if (!summary) throw new Error(`${event.type} for network ${name}, which was never created`);
  Object.assign(summary, bookkeeping);
  const place: Place = { summary, addedBy: recorded.metadata.actor, at };
  switch (event.type) {
    case 'NetworkNodeAdded':
      addNodes(batch, place, [event.data]);
      return;
    case 'NetworkNodesAdded':
      addNodes(batch, place, event.data.nodes);
      return;
    case 'NetworkEdgeAdded':
      addEdges(batch, place, [event.data]);
      return;
    case 'NetworkEdgesAdded':
      addEdges(batch, place, event.data.edges);
      return;
    default:
      return event satisfies never;
  }
};

/** Folds the batch's events in log order into `batch`. */
export const foldNetworkBatch = (
  batch: NetworkBatch,
  parsed: readonly { readonly recorded: RecordedEvent; readonly event: NetworkEvent }[],
): void => {
  let lastAt: string | undefined;
  let at = '';
  for (const { recorded, event } of parsed) {
    // The events of one command share its time: normalised once per command, not per node.
    if (recorded.metadata.at !== lastAt) {
      lastAt = recorded.metadata.at;
      at = isoTime(lastAt);
    }
    foldEvent(batch, recorded, event, at);
  }
};
