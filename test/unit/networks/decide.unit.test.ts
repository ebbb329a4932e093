import { describe, expect, it } from 'vitest';
import {
  decideNetwork,
  type NetworkCommand,
  type NetworkLimits,
} from '../../../services/networks/decide.js';
import {
  NetworkLimitReached,
  NetworkNotFound,
  NodeNotFound,
} from '../../../services/networks/errors.js';
import type { NetworkEvent } from '../../../services/networks/events.js';
import {
  evolve,
  foldNetworkEvents,
  hasNode,
  initialNetworkState,
} from '../../../services/networks/state.js';
import { spec } from '../../support/decider-spec.js';

const meta = {
  commandId: '0b9d7c4e-51a3-4a55-9f58-3c1f0f6c2a01',
  actor: 'agent:planner',
  at: '2026-11-30T10:00:00.000Z',
};
const NET = 'module_deps';

const created: NetworkEvent = {
  type: 'NetworkCreated',
  data: { networkName: NET, description: 'Module dependencies', createdBy: 'agent:planner' },
};
const node = (nodeId: string): NetworkEvent => ({
  type: 'NetworkNodeAdded',
  data: { networkName: NET, nodeId, data: null, attributes: {} },
});
const edge = (edgeId: number, source: string, target: string): NetworkEvent => ({
  type: 'NetworkEdgeAdded',
  data: { networkName: NET, edgeId, source, target, weight: 1, attributes: {} },
});

const addNode = (nodeId: string): NetworkCommand => ({
  type: 'AddNode',
  networkName: NET,
  nodeId,
  data: 'Core',
  attributes: { layer: 2 },
  meta,
});
const addEdge = (source: string, target: string, weight = 1): NetworkCommand => ({
  type: 'AddEdge',
  networkName: NET,
  source,
  target,
  weight,
  attributes: { relation: 'depends_on' },
  meta,
});

/** The Network decider under `limits` (default: the product's). */
const network = (limits?: NetworkLimits) =>
  spec({
    decide: (command: NetworkCommand, state) => decideNetwork(command, state, limits),
    evolve,
    initialState: initialNetworkState,
  });

describe('Network decider', () => {
  it('given no network, when CreateNetwork, then NetworkCreated by the actor', () => {
    network()
      .given([])
      .when({ type: 'CreateNetwork', networkName: NET, description: null, meta })
      .then([
        {
          type: 'NetworkCreated',
          data: { networkName: NET, description: null, createdBy: 'agent:planner' },
        },
      ]);
  });

  it('given the network exists, when CreateNetwork again, then nothing (duplicate)', () => {
    network()
      .given([created])
      .when({ type: 'CreateNetwork', networkName: NET, description: 'x', meta })
      .then([]);
  });

  it('given a network, when AddNode, then NetworkNodeAdded with data and attributes', () => {
    network()
      .given([created])
      .when(addNode('networks'))
      .then([
        {
          type: 'NetworkNodeAdded',
          data: { networkName: NET, nodeId: 'networks', data: 'Core', attributes: { layer: 2 } },
        },
      ]);
  });

  it('given the node exists, when AddNode again, then nothing (duplicate)', () => {
    network()
      .given([created, node('networks')])
      .when(addNode('networks'))
      .then([]);
  });

  it('given no network, when AddNode or AddEdge, then NetworkNotFound', () => {
    network().given([]).when(addNode('a')).thenThrows(NetworkNotFound);
    network().given([]).when(addEdge('a', 'b')).thenThrows(NetworkNotFound);
  });

  it('given two nodes, when AddEdge twice, then two edges numbered 1 and 2', () => {
    const history = [created, node('agents'), node('logging')];
    const { decision: first } = network()
      .given(history)
      .when(addEdge('agents', 'logging', 0.5))
      .then([
        {
          type: 'NetworkEdgeAdded',
          data: {
            networkName: NET,
            edgeId: 1,
            source: 'agents',
            target: 'logging',
            weight: 0.5,
            attributes: { relation: 'depends_on' },
          },
        },
      ]);
    network()
      .given([...history, ...first])
      .when(addEdge('agents', 'logging', 0.5))
      .then([
        expect.objectContaining({
          type: 'NetworkEdgeAdded',
          data: expect.objectContaining({
            edgeId: 2,
            source: 'agents',
            target: 'logging',
          }) as object,
        }),
      ]);
  });

  it('given a missing end, when AddEdge, then NodeNotFound naming each missing node', () => {
    const oneNode = network().given([created, node('agents')]);
    oneNode.when(addEdge('ghost', 'phantom')).thenThrows(NodeNotFound, (error) => {
      expect(error.details).toEqual({ networkName: NET, nodeIds: ['ghost', 'phantom'] });
    });
    oneNode.when(addEdge('agents', 'ghost')).thenThrows(/no node "ghost"/);
  });

  it('given a self-loop on an existing node, when AddEdge, then it is an edge like any other', () => {
    network()
      .given([created, node('a')])
      .when(addEdge('a', 'a'))
      .then([
        {
          type: 'NetworkEdgeAdded',
          data: {
            networkName: NET,
            edgeId: 1,
            source: 'a',
            target: 'a',
            weight: 1,
            attributes: { relation: 'depends_on' },
          },
        },
      ]);
  });

  it('given a full network, when one node or edge more, then NetworkLimitReached', () => {
    const full = network({ maxNodes: 2, maxEdges: 1 }).given([
      created,
      node('a'),
      node('b'),
      edge(1, 'a', 'b'),
    ]);
    full.when(addNode('c')).thenThrows(NetworkLimitReached);
    full.when(addEdge('b', 'a')).thenThrows(/most edges a network may have \(1\)/);
    // A duplicate is still a no-op at the limit: nothing would be added.
    full.when(addNode('a')).then([]);
  });
});

describe('Network state', () => {
  it('counts nodes and edges and tracks the revision', () => {
    const state = foldNetworkEvents([created, node('a'), node('b'), edge(1, 'a', 'b')]);
    expect(state).toMatchObject({
      exists: true,
      networkName: NET,
      description: 'Module dependencies',
      createdBy: 'agent:planner',
      nodeCount: 2,
      edgeCount: 1,
      revision: 3n,
    });
    expect(hasNode(state, 'a')).toBe(true);
    expect(hasNode(state, 'c')).toBe(false);
  });

  it('counts a node added twice once', () => {
    expect(foldNetworkEvents([created, node('a'), node('a')]).nodeCount).toBe(1);
  });

  it('keeps every state a value: an older state does not see later nodes, and may branch', () => {
    const base = foldNetworkEvents([created, node('a')]);
    const withB = evolve(base, node('b'));
    expect(hasNode(base, 'b')).toBe(false);
    expect(hasNode(withB, 'b')).toBe(true);
    // Evolving the older state again (a branch) must not disturb the newer one.
    const withC = evolve(base, node('c'));
    expect(hasNode(withC, 'c')).toBe(true);
    expect(hasNode(withC, 'b')).toBe(false);
    expect(hasNode(withB, 'c')).toBe(false);
    expect(hasNode(withB, 'b')).toBe(true);
    expect(initialNetworkState().exists).toBe(false);
  });

  it('shares the node index along one history instead of copying it', () => {
    const base = foldNetworkEvents([created, node('a')]);
    const next = evolve(base, node('b'));
    // Copying the set on every event would make a 100k-node fold quadratic.
    expect(next.nodes).toBe(base.nodes);
    expect(evolve(base, node('c')).nodes).not.toBe(base.nodes);
  });
});
