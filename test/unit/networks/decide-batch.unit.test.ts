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
import { foldNetworkEvents } from '../../../services/networks/state.js';

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
        type: 'NetworkNodeAdded',
        data: { networkName: NET, nodeId: 'b', data: 'data of b', attributes: { layer: 1 } },
      },
      {
        type: 'NetworkNodeAdded',
        data: { networkName: NET, nodeId: 'c', data: 'data of c', attributes: { layer: 1 } },
      },
    ]);
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
    expect(decision.events.map((event) => event.data.nodeId)).toEqual(['x']);
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
    expect(decision.events.map((event) => event.data.edgeId)).toEqual([2, 3, 4]);
    expect(decision.events[2]?.data).toMatchObject({ source: 'b', target: 'a', weight: 2 });
  });

  it('given node a only, when an edge to a missing node sits between good ones, then that one errors and the rest keep consecutive ids', () => {
    const decision = decideAddEdges(
      edges(['a', 'a'], ['a', 'ghost'], ['ghost', 'phantom'], ['a', 'a']),
      foldNetworkEvents([created, node('a')]),
    );
    expect(statuses(decision.items)).toEqual(['success', 'error', 'error', 'success']);
    expect(decision.events.map((event) => event.data.edgeId)).toEqual([1, 2]);
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
    expect(decision.events).toHaveLength(1);
  });

  it('given no network, when AddEdges, then NetworkNotFound for the whole call', () => {
    expect(() => decideAddEdges(edges(['a', 'b']), foldNetworkEvents([]))).toThrow(NetworkNotFound);
  });
});
