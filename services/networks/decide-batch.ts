import type { CommandMetadata } from '../commands/metadata.js';
import type { CogitaveError } from '../runtime/errors.js';
import { DEFAULT_NETWORK_LIMITS, existing, type NetworkLimits } from './decide.js';
import { NetworkLimitReached, NodeNotFound } from './errors.js';
import type {
  AddedEdge,
  AddedNode,
  Attributes,
  NetworkEdgesAdded,
  NetworkNodesAdded,
} from './events.js';
import { hasNode, type NetworkState } from './state.js';

/**
 * The batch commands (`network_add_nodes`, `network_add_edges`): each item is decided as the
 * single-item command would be after the items before it, and answers with the same status
 * (`success`, `duplicate`, or `error` with its reason). The items that succeed become one
 * event (`NetworkNodesAdded` / `NetworkEdgesAdded`, in the order of the call), so a call is all
 * its successes or nothing and writes one row of the log. No success, no event. A missing
 * network refuses the whole call, as it refuses a single item.
 */

export interface NodeItem {
  readonly nodeId: string;
  readonly data: unknown;
  readonly attributes: Attributes;
}

export interface EdgeItem {
  readonly source: string;
  readonly target: string;
  readonly weight: number;
  readonly attributes: Attributes;
}

export interface AddNodesCommand {
  readonly type: 'AddNodes';
  readonly networkName: string;
  readonly nodes: readonly NodeItem[];
  readonly meta: CommandMetadata;
}

export interface AddEdgesCommand {
  readonly type: 'AddEdges';
  readonly networkName: string;
  readonly edges: readonly EdgeItem[];
  readonly meta: CommandMetadata;
}

/** What became of one item; `success` items are, in order, the items of the decided event. */
export type ItemOutcome =
  | { readonly status: 'success' }
  | { readonly status: 'duplicate' }
  | { readonly status: 'error'; readonly error: CogitaveError };

export interface BatchDecision<E> {
  /** Empty, or the one event holding every success. */
  readonly events: readonly E[];
  /** One per item, in the order of the command's items. */
  readonly items: readonly ItemOutcome[];
}

const SUCCESS: ItemOutcome = { status: 'success' };
const DUPLICATE: ItemOutcome = { status: 'duplicate' };

export const decideAddNodes = (
  command: AddNodesCommand,
  state: NetworkState,
  limits: NetworkLimits = DEFAULT_NETWORK_LIMITS,
): BatchDecision<NetworkNodesAdded> => {
  existing(state, command.networkName);
  const added = new Set<string>();
  const nodes: AddedNode[] = [];
  const items = command.nodes.map((node): ItemOutcome => {
    // A node named twice in one call is added once; the second answers duplicate.
    if (hasNode(state, node.nodeId) || added.has(node.nodeId)) return DUPLICATE;
    if (state.nodeCount + added.size >= limits.maxNodes) {
      return {
        status: 'error',
        error: new NetworkLimitReached(command.networkName, 'nodes', limits.maxNodes),
      };
    }
    added.add(node.nodeId);
    nodes.push({ nodeId: node.nodeId, data: node.data, attributes: node.attributes });
    return SUCCESS;
  });
  const events: NetworkNodesAdded[] =
    nodes.length === 0
      ? []
      : [{ type: 'NetworkNodesAdded', data: { networkName: command.networkName, nodes } }];
  return { events, items };
};

export const decideAddEdges = (
  command: AddEdgesCommand,
  state: NetworkState,
  limits: NetworkLimits = DEFAULT_NETWORK_LIMITS,
): BatchDecision<NetworkEdgesAdded> => {
  existing(state, command.networkName);
  const edges: AddedEdge[] = [];
  const items = command.edges.map((edge): ItemOutcome => {
    const missing = [...new Set([edge.source, edge.target])].filter(
      (nodeId) => !hasNode(state, nodeId),
    );
    if (missing.length > 0) {
      return { status: 'error', error: new NodeNotFound(command.networkName, missing) };
    }
    const edgeCount = state.edgeCount + edges.length;
    if (edgeCount >= limits.maxEdges) {
      return {
        status: 'error',
        error: new NetworkLimitReached(command.networkName, 'edges', limits.maxEdges),
      };
    }
    // Edges are never deduplicated, within a call or across calls (as network_add_edge).
    edges.push({
      edgeId: edgeCount + 1,
      source: edge.source,
      target: edge.target,
      weight: edge.weight,
      attributes: edge.attributes,
    });
    return SUCCESS;
  });
  const events: NetworkEdgesAdded[] =
    edges.length === 0
      ? []
      : [{ type: 'NetworkEdgesAdded', data: { networkName: command.networkName, edges } }];
  return { events, items };
};
