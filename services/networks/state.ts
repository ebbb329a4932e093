import type { NetworkEvent } from './events.js';

/**
 * The Network aggregate's state: what `decide` needs (does the network exist, which nodes it
 * has, how many nodes and edges), folded from the stream by `evolve`. `evolve` trusts the
 * events (they were decided); it never throws.
 *
 * A network may hold 100k nodes, so copying the node set on every event would make a fold
 * quadratic. States of one history instead share an append-only index of node ids, each
 * stored with its ordinal; a state sees the first `nodeCount` of them. Evolving the newest
 * state of a history appends to the shared index in O(1); evolving an older one (a branch)
 * copies the part it sees first, so every state stays an immutable value.
 */
export class NodeIndex {
  readonly #ordinals: Map<string, number>;

  constructor(ordinals: Map<string, number> = new Map()) {
    this.#ordinals = ordinals;
  }

  get size(): number {
    return this.#ordinals.size;
  }

  /** Whether `nodeId` is among the first `count` nodes added. */
  has(nodeId: string, count: number): boolean {
    const ordinal = this.#ordinals.get(nodeId);
    return ordinal !== undefined && ordinal < count;
  }

  /** The index a state that sees `count` nodes may append to (itself, or a copy of its view). */
  forAppend(count: number): NodeIndex {
    if (this.#ordinals.size === count) return this;
    const view = new Map<string, number>();
    for (const [id, ordinal] of this.#ordinals) if (ordinal < count) view.set(id, ordinal);
    return new NodeIndex(view);
  }

  /** Only on an index returned by `forAppend(count)`. */
  append(nodeId: string, ordinal: number): void {
    this.#ordinals.set(nodeId, ordinal);
  }
}

export interface NetworkState {
  readonly exists: boolean;
  readonly networkName: string | null;
  readonly description: string | null;
  readonly createdBy: string | null;
  readonly nodeCount: number;
  readonly edgeCount: number;
  /** Revision of the last event folded; null while the stream does not exist. */
  readonly revision: bigint | null;
  readonly nodes: NodeIndex;
}

export const initialNetworkState = (): NetworkState => ({
  exists: false,
  networkName: null,
  description: null,
  createdBy: null,
  nodeCount: 0,
  edgeCount: 0,
  revision: null,
  nodes: new NodeIndex(),
});

export const hasNode = (state: NetworkState, nodeId: string): boolean =>
  state.nodes.has(nodeId, state.nodeCount);

const applyEvent = (state: NetworkState, event: NetworkEvent): NetworkState => {
  switch (event.type) {
    case 'NetworkCreated':
      return {
        ...state,
        exists: true,
        networkName: event.data.networkName,
        description: event.data.description,
        createdBy: event.data.createdBy,
      };
    case 'NetworkNodeAdded': {
      // A node added twice (never decided so) counts once.
      if (hasNode(state, event.data.nodeId)) return state;
      const nodes = state.nodes.forAppend(state.nodeCount);
      nodes.append(event.data.nodeId, state.nodeCount);
      return { ...state, nodes, nodeCount: state.nodeCount + 1 };
    }
    case 'NetworkEdgeAdded':
      return { ...state, edgeCount: Math.max(state.edgeCount + 1, event.data.edgeId) };
    case 'NetworkNodesAdded': {
      let nodes = state.nodes;
      let nodeCount = state.nodeCount;
      for (const node of event.data.nodes) {
        // As a NetworkNodeAdded per node: one named twice (never decided so) counts once.
        if (nodes.has(node.nodeId, nodeCount)) continue;
        nodes = nodes.forAppend(nodeCount);
        nodes.append(node.nodeId, nodeCount);
        nodeCount += 1;
      }
      return nodeCount === state.nodeCount ? state : { ...state, nodes, nodeCount };
    }
    case 'NetworkEdgesAdded': {
      let edgeCount = state.edgeCount;
      for (const edge of event.data.edges) edgeCount = Math.max(edgeCount + 1, edge.edgeId);
      return { ...state, edgeCount };
    }
  }
};

/** Folds one event; each event is one revision further along the stream. */
export const evolve = (state: NetworkState, event: NetworkEvent): NetworkState => ({
  ...applyEvent(state, event),
  revision: state.revision === null ? 0n : state.revision + 1n,
});

export const foldNetworkEvents = (
  events: readonly NetworkEvent[],
  from: NetworkState = initialNetworkState(),
): NetworkState => events.reduce(evolve, from);
