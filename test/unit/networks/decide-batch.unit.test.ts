import { describe, expect, it } from 'vitest';
import type { NetworkLimits } from '../../../services/networks/decide.js';
import {
  decideAddEdges,
  decideAddNodes,
  type AddEdgesCommand,
  type AddNodesCommand,
  type EdgeItem,
  type ItemOutcome,
} from '../../../services/networks/decide-batch.js';
import {
  NetworkLimitReached,
  NetworkNotFound,
  NodeNotFound,
} from '../../../services/networks/errors.js';
import type {
  NetworkEdgesAdded,
  NetworkEvent,
  NetworkNodesAdded,
} from '../../../services/networks/events.js';
import type { CogitaveError } from '../../../services/runtime/errors.js';
import {
  evolve,
  foldNetworkEvents,
  hasNode,
  initialNetworkState,
} from '../../../services/networks/state.js';
import { spec } from '../../support/decider-spec.js';

const meta = {
  commandId: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  actor: 'agent:planner',
  at: '2026-11-30T10:00:00.000Z',
};
const NET = 'module_deps';
const created: NetworkEvent = {
  type: 'NetworkCreated',
  data: { networkName: NET, description: null, createdBy: 'agent:planner' },
};
const node = (nodeId: string): NetworkEvent => ({
  type: 'NetworkNodeAdded',
  data: { networkName: NET, nodeId, data: null, attributes: {} },
});
const edge = (edgeId: number): NetworkEvent => ({
  type: 'NetworkEdgeAdded',
  data: { networkName: NET, edgeId, source: 'a', target: 'b', weight: 1, attributes: {} },
});

const nodes = (...ids: string[]) => ({
  type: 'AddNodes' as const,
  networkName: NET,
  nodes: ids.map((nodeId) => ({ nodeId, data: `data of ${nodeId}`, attributes: { layer: 1 } })),
  meta,
});
const edges = (...pairs: [string, string][]) => ({
  type: 'AddEdges' as const,
  networkName: NET,
  edges: pairs.map(([source, target]): EdgeItem => ({ source, target, weight: 2, attributes: {} })),
  meta,
});

/** The batch deciders under `limits` (default: the product's); a decision is events and items. */
const addingNodes = (limits?: NetworkLimits) =>
  spec(
    {
      decide: (command: AddNodesCommand, state) => decideAddNodes(command, state, limits),
      evolve,
      initialState: initialNetworkState,
    },
    (decision) => decision.events,
  );
const addingEdges = (limits?: NetworkLimits) =>
  spec(
    {
      decide: (command: AddEdgesCommand, state) => decideAddEdges(command, state, limits),
      evolve,
      initialState: initialNetworkState,
    },
    (decision) => decision.events,
  );

const success: ItemOutcome = { status: 'success' };
const duplicate: ItemOutcome = { status: 'duplicate' };
const refused = (errorClass: typeof NetworkLimitReached | typeof NodeNotFound): ItemOutcome => ({
  status: 'error',
  error: expect.any(errorClass) as CogitaveError,
});
const nodesAdded = (...ids: string[]): NetworkNodesAdded => ({
  type: 'NetworkNodesAdded',
  data: {
    networkName: NET,
    nodes: ids.map((nodeId) => ({ nodeId, data: `data of ${nodeId}`, attributes: { layer: 1 } })),
  },
});
const edgesAdded = (
  ...added: [edgeId: number, source: string, target: string][]
): NetworkEdgesAdded => ({
  type: 'NetworkEdgesAdded',
  data: {
    networkName: NET,
    edges: added.map(([edgeId, source, target]) => ({
      edgeId,
      source,
      target,
      weight: 2,
      attributes: {},
    })),
  },
});

describe('batch decider: AddNodes', () => {
  it('given a network with node a, when a, b, b, c, then b and c added once, a and the second b duplicate', () => {
    addingNodes()
      .given([created, node('a')])
      .when(nodes('a', 'b', 'b', 'c'))
      .then({
        events: [nodesAdded('b', 'c')],
        items: [duplicate, success, duplicate, success],
      });
  });

  it('given every node exists, when AddNodes, then all duplicate and no event', () => {
    addingNodes()
      .given([created, node('a')])
      .when(nodes('a', 'a'))
      .then({ events: [], items: [duplicate, duplicate] });
  });

  it('given no network, when AddNodes, then NetworkNotFound for the whole call', () => {
    addingNodes().given([]).when(nodes('a')).thenThrows(NetworkNotFound);
  });

  it('given room for one more node, when three new nodes, then one added and two errors naming the limit', () => {
    addingNodes({ maxNodes: 2, maxEdges: 10 })
      .given([created, node('a')])
      .when(nodes('a', 'x', 'b', 'c'))
      .then({
        events: [nodesAdded('x')],
        items: [duplicate, success, refused(NetworkLimitReached), refused(NetworkLimitReached)],
      });
  });
});

describe('batch decider: AddEdges', () => {
  it('given nodes a and b and one edge, when three edges (one identical twice), then ids 2, 3, 4', () => {
    addingEdges()
      .given([created, node('a'), node('b'), edge(1)])
      .when(edges(['a', 'b'], ['a', 'b'], ['b', 'a']))
      .then({
        events: [edgesAdded([2, 'a', 'b'], [3, 'a', 'b'], [4, 'b', 'a'])],
        items: [success, success, success],
      });
  });

  it('given node a only, when an edge to a missing node sits between good ones, then that one errors and the rest keep consecutive ids', () => {
    const { decision } = addingEdges()
      .given([created, node('a')])
      .when(edges(['a', 'a'], ['a', 'ghost'], ['ghost', 'phantom'], ['a', 'a']))
      .then({
        events: [edgesAdded([1, 'a', 'a'], [2, 'a', 'a'])],
        items: [success, refused(NodeNotFound), refused(NodeNotFound), success],
      });
    const missing = decision.items[2];
    expect(missing?.status === 'error' && missing.error.message).toMatch(
      /no node "ghost" and "phantom"/,
    );
  });

  it('given room for one more edge, when two edges, then the second errors with the limit', () => {
    addingEdges({ maxNodes: 10, maxEdges: 1 })
      .given([created, node('a')])
      .when(edges(['a', 'a'], ['a', 'a']))
      .then({
        events: [edgesAdded([1, 'a', 'a'])],
        items: [success, refused(NetworkLimitReached)],
      });
  });

  it('given node a, when every edge names a missing node, then all errors and no event', () => {
    addingEdges()
      .given([created, node('a')])
      .when(edges(['a', 'z']))
      .then({ events: [], items: [refused(NodeNotFound)] });
  });

  it('given no network, when AddEdges, then NetworkNotFound for the whole call', () => {
    addingEdges()
      .given([])
      .when(edges(['a', 'b']))
      .thenThrows(NetworkNotFound);
  });
});

describe('evolve: batch events', () => {
  it('folds NetworkNodesAdded as one NetworkNodeAdded per node, one revision further', () => {
    const before = foldNetworkEvents([created, node('a')]);
    const state = evolve(before, {
      type: 'NetworkNodesAdded',
      data: {
        networkName: NET,
        nodes: ['b', 'a', 'c', 'b'].map((nodeId) => ({ nodeId, data: null, attributes: {} })),
      },
    });
    const single = foldNetworkEvents([node('b'), node('a'), node('c'), node('b')], before);
    expect(state.nodeCount).toBe(3);
    expect(single.nodeCount).toBe(3);
    expect(['a', 'b', 'c'].every((id) => hasNode(state, id))).toBe(true);
    expect(state.revision).toBe(2n);
    // The earlier state is a value: it still sees only its own node.
    expect(hasNode(before, 'b')).toBe(false);
  });

  it('folds NetworkEdgesAdded as its edges, the count following the largest edge id', () => {
    const state = evolve(foldNetworkEvents([created, node('a'), edge(1)]), {
      type: 'NetworkEdgesAdded',
      data: {
        networkName: NET,
        edges: [2, 3].map((edgeId) => ({
          edgeId,
          source: 'a',
          target: 'a',
          weight: 1,
          attributes: {},
        })),
      },
    });
    expect(state.edgeCount).toBe(3);
    expect(decideAddEdges(edges(['a', 'a']), state).events[0]?.data.edges[0]?.edgeId).toBe(4);
  });
});
