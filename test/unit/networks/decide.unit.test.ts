import { describe, expect, it } from 'vitest';
import { decideNetwork, type NetworkCommand } from '../../../services/networks/decide.js';
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

/** given these events, when the command: the events decided (or the error thrown). */
const given = (...events: NetworkEvent[]) => ({
  when: (command: NetworkCommand, limits?: { maxNodes: number; maxEdges: number }) =>
    decideNetwork(command, foldNetworkEvents(events), limits),
});

describe('Network decider', () => {
  it('given no network, when CreateNetwork, then NetworkCreated by the actor', () => {
    expect(
      given().when({ type: 'CreateNetwork', networkName: NET, description: null, meta }),
    ).toEqual([
      {
        type: 'NetworkCreated',
        data: { networkName: NET, description: null, createdBy: 'agent:planner' },
      },
    ]);
  });

  it('given the network exists, when CreateNetwork again, then nothing (duplicate)', () => {
    expect(
      given(created).when({ type: 'CreateNetwork', networkName: NET, description: 'x', meta }),
    ).toEqual([]);
  });

  it('given a network, when AddNode, then NetworkNodeAdded with data and attributes', () => {
    expect(given(created).when(addNode('networks'))).toEqual([
      {
        type: 'NetworkNodeAdded',
        data: { networkName: NET, nodeId: 'networks', data: 'Core', attributes: { layer: 2 } },
      },
    ]);
  });

  it('given the node exists, when AddNode again, then nothing (duplicate)', () => {
    expect(given(created, node('networks')).when(addNode('networks'))).toEqual([]);
  });

  it('given no network, when AddNode or AddEdge, then NetworkNotFound', () => {
    expect(() => given().when(addNode('a'))).toThrow(NetworkNotFound);
    expect(() => given().when(addEdge('a', 'b'))).toThrow(NetworkNotFound);
  });

  it('given two nodes, when AddEdge twice, then two edges numbered 1 and 2', () => {
    const history = [created, node('agents'), node('logging')];
    const first = given(...history).when(addEdge('agents', 'logging', 0.5));
    expect(first).toEqual([
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
    const second = given(...history, ...first).when(addEdge('agents', 'logging', 0.5));
    expect(second[0]?.data).toMatchObject({ edgeId: 2, source: 'agents', target: 'logging' });
  });

  it('given a missing end, when AddEdge, then NodeNotFound naming each missing node', () => {
    const thrown = (() => {
      try {
        given(created, node('agents')).when(addEdge('ghost', 'phantom'));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(NodeNotFound);
    expect((thrown as NodeNotFound).details).toEqual({
      networkName: NET,
      nodeIds: ['ghost', 'phantom'],
    });
    expect(() => given(created, node('agents')).when(addEdge('agents', 'ghost'))).toThrow(
      /no node "ghost"/,
    );
  });

  it('given a self-loop on an existing node, when AddEdge, then it is an edge like any other', () => {
    expect(given(created, node('a')).when(addEdge('a', 'a'))).toHaveLength(1);
  });

  it('given a full network, when one node or edge more, then NetworkLimitReached', () => {
    const limits = { maxNodes: 2, maxEdges: 1 };
    const full = [created, node('a'), node('b'), edge(1, 'a', 'b')];
    expect(() => given(...full).when(addNode('c'), limits)).toThrow(NetworkLimitReached);
    expect(() => given(...full).when(addEdge('b', 'a'), limits)).toThrow(
      /most edges a network may have \(1\)/,
    );
    // A duplicate is still a no-op at the limit: nothing would be added.
    expect(given(...full).when(addNode('a'), limits)).toEqual([]);
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
