import { describe, expect, it } from 'vitest';
import {
  decideAddEdges,
  decideAddNodes,
  type EdgeItem,
  type ItemOutcome,
} from '../../../services/networks/decide-batch.js';
import {
  NetworkLimitReached,
  NetworkNotFound,
  NodeNotFound,
} from '../../../services/networks/errors.js';
import type { NetworkEvent } from '../../../services/networks/events.js';
import { evolve, foldNetworkEvents, hasNode } from '../../../services/networks/state.js';

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
const statuses = (items: readonly ItemOutcome[]) => items.map((item) => item.status);

describe('batch decider: AddNodes', () => {
  it('given a network with node a, when a, b, b, c, then b and c added once, a and the second b duplicate', () => {
    const decision = decideAddNodes(
      nodes('a', 'b', 'b', 'c'),
      foldNetworkEvents([created, node('a')]),
    );
    expect(statuses(decision.items)).toEqual(['duplicate', 'success', 'duplicate', 'success']);
    expect(decision.events).toEqual([
      {
        type: 'NetworkNodesAdded',
        data: {
          networkName: NET,
          nodes: [
            { nodeId: 'b', data: 'data of b', attributes: { layer: 1 } },
            { nodeId: 'c', data: 'data of c', attributes: { layer: 1 } },
          ],
        },
      },
    ]);
  });

  it('given every node exists, when AddNodes, then all duplicate and no event', () => {
    const decision = decideAddNodes(nodes('a', 'a'), foldNetworkEvents([created, node('a')]));
    expect(statuses(decision.items)).toEqual(['duplicate', 'duplicate']);
    expect(decision.events).toEqual([]);
  });

  it('given no network, when AddNodes, then NetworkNotFound for the whole call', () => {
    expect(() => decideAddNodes(nodes('a'), foldNetworkEvents([]))).toThrow(NetworkNotFound);
  });

  it('given room for one more node, when three new nodes, then one added and two errors naming the limit', () => {
    const decision = decideAddNodes(
      nodes('a', 'x', 'b', 'c'),
      foldNetworkEvents([created, node('a')]),
      {
        maxNodes: 2,
        maxEdges: 10,
      },
    );
    expect(statuses(decision.items)).toEqual(['duplicate', 'success', 'error', 'error']);
    expect(decision.events.flatMap((event) => event.data.nodes.map((n) => n.nodeId))).toEqual([
      'x',
    ]);
    const failed = decision.items[2];
    expect(failed?.status === 'error' && failed.error).toBeInstanceOf(NetworkLimitReached);
  });
});

describe('batch decider: AddEdges', () => {
  it('given nodes a and b and one edge, when three edges (one identical twice), then ids 2, 3, 4', () => {
    const decision = decideAddEdges(
      edges(['a', 'b'], ['a', 'b'], ['b', 'a']),
      foldNetworkEvents([created, node('a'), node('b'), edge(1)]),
    );
    expect(statuses(decision.items)).toEqual(['success', 'success', 'success']);
    expect(decision.events).toHaveLength(1);
    const added = decision.events[0]?.data.edges ?? [];
    expect(added.map((e) => e.edgeId)).toEqual([2, 3, 4]);
    expect(added[2]).toMatchObject({ source: 'b', target: 'a', weight: 2 });
  });

  it('given node a only, when an edge to a missing node sits between good ones, then that one errors and the rest keep consecutive ids', () => {
    const decision = decideAddEdges(
      edges(['a', 'a'], ['a', 'ghost'], ['ghost', 'phantom'], ['a', 'a']),
      foldNetworkEvents([created, node('a')]),
    );
    expect(statuses(decision.items)).toEqual(['success', 'error', 'error', 'success']);
    expect(decision.events.flatMap((event) => event.data.edges.map((e) => e.edgeId))).toEqual([
      1, 2,
    ]);
    const missing = decision.items[2];
    expect(missing?.status === 'error' && missing.error).toBeInstanceOf(NodeNotFound);
    expect(missing?.status === 'error' && missing.error.message).toMatch(
      /no node "ghost" and "phantom"/,
    );
  });

  it('given room for one more edge, when two edges, then the second errors with the limit', () => {
    const decision = decideAddEdges(
      edges(['a', 'a'], ['a', 'a']),
      foldNetworkEvents([created, node('a')]),
      { maxNodes: 10, maxEdges: 1 },
    );
    expect(statuses(decision.items)).toEqual(['success', 'error']);
    expect(decision.events.map((event) => event.data.edges.length)).toEqual([1]);
  });

  it('given node a, when every edge names a missing node, then all errors and no event', () => {
    const decision = decideAddEdges(edges(['a', 'z']), foldNetworkEvents([created, node('a')]));
    expect(statuses(decision.items)).toEqual(['error']);
    expect(decision.events).toEqual([]);
  });

  it('given no network, when AddEdges, then NetworkNotFound for the whole call', () => {
    expect(() => decideAddEdges(edges(['a', 'b']), foldNetworkEvents([]))).toThrow(NetworkNotFound);
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
