import type { CommandMetadata } from '../commands/metadata.js';
import { NetworkLimitReached, NetworkNotFound, NodeNotFound } from './errors.js';
import type { Attributes, NetworkEvent } from './events.js';
import { hasNode, type NetworkState } from './state.js';

/**
 * The Network decider: pure, time and actor from the command metadata. An empty result means
 * the command is already satisfied (the network or node exists): nothing to append.
 */

export interface NetworkLimits {
  readonly maxNodes: number;
  readonly maxEdges: number;
}

export const DEFAULT_NETWORK_LIMITS: NetworkLimits = { maxNodes: 100_000, maxEdges: 1_000_000 };

export type NetworkCommand =
  | {
      readonly type: 'CreateNetwork';
      readonly networkName: string;
      readonly description: string | null;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'AddNode';
      readonly networkName: string;
      readonly nodeId: string;
      readonly data: unknown;
      readonly attributes: Attributes;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'AddEdge';
      readonly networkName: string;
      readonly source: string;
      readonly target: string;
      readonly weight: number;
      readonly attributes: Attributes;
      readonly meta: CommandMetadata;
    };

/** The state of an existing network, or NetworkNotFound. */
export const existing = (state: NetworkState, networkName: string): NetworkState => {
  if (!state.exists) throw new NetworkNotFound(networkName);
  return state;
};

export const decideNetwork = (
  command: NetworkCommand,
  state: NetworkState,
  limits: NetworkLimits = DEFAULT_NETWORK_LIMITS,
): NetworkEvent[] => {
  switch (command.type) {
    case 'CreateNetwork':
      if (state.exists) return [];
      return [
        {
          type: 'NetworkCreated',
          data: {
            networkName: command.networkName,
            description: command.description,
            createdBy: command.meta.actor,
          },
        },
      ];
    case 'AddNode': {
      existing(state, command.networkName);
      if (hasNode(state, command.nodeId)) return [];
      if (state.nodeCount >= limits.maxNodes) {
        throw new NetworkLimitReached(command.networkName, 'nodes', limits.maxNodes);
      }
      return [
        {
          type: 'NetworkNodeAdded',
          data: {
            networkName: command.networkName,
            nodeId: command.nodeId,
            data: command.data,
            attributes: command.attributes,
          },
        },
      ];
    }
    case 'AddEdge': {
      existing(state, command.networkName);
      const missing = [...new Set([command.source, command.target])].filter(
        (nodeId) => !hasNode(state, nodeId),
      );
      if (missing.length > 0) throw new NodeNotFound(command.networkName, missing);
      if (state.edgeCount >= limits.maxEdges) {
        throw new NetworkLimitReached(command.networkName, 'edges', limits.maxEdges);
      }
      // Edges are never deduplicated: each call is a new edge with the next number.
      return [
        {
          type: 'NetworkEdgeAdded',
          data: {
            networkName: command.networkName,
            edgeId: state.edgeCount + 1,
            source: command.source,
            target: command.target,
            weight: command.weight,
            attributes: command.attributes,
          },
        },
      ];
    }
  }
};
