import { z } from 'zod';
import { nodeIdSchema } from '../../services/networks/inputs.js';
import { defineTool, READ_ONLY } from '../registry.js';
import {
  argText,
  NETWORK_TOOL_ICON,
  networkNameField,
  statusErrorField,
} from './network-create.js';

/** `network_get_neighbors` (seed 003): nodes joined to a node by an inbound or outbound edge. */

const input = z.strictObject({
  network_name: networkNameField.describe('Name of the network to query, e.g. "module_deps".'),
  node_id: nodeIdSchema.describe('ID of the node whose neighbors to retrieve, e.g. "agents".'),
});

const output = z.object({
  status: z.enum(['success', 'error']),
  node_id: z.string(),
  neighbors: z.array(z.string()),
  count: z.number().int(),
  error: statusErrorField,
});

export const networkGetNeighborsTool = defineTool({
  name: 'network_get_neighbors',
  title: 'Neighbors of a node',
  description:
    'Returns the IDs of all nodes connected to a node of a network by an outbound or an inbound edge, each once, in the order of the first edge that joined them (a self-loop lists the node itself). Useful for exploring a graph, dependency analysis and planning a traversal. Errors when the network or the node does not exist.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, { services, scope }) => {
    const { nodeId, neighbors } = await services.networks.getNeighbors(
      scope,
      args.network_name,
      args.node_id,
    );
    return {
      status: 'success' as const,
      node_id: nodeId,
      neighbors: [...neighbors],
      count: neighbors.length,
    };
  },
  errorResult: (error, args) => ({
    status: 'error' as const,
    node_id: argText(args, 'node_id'),
    neighbors: [],
    count: 0,
    error: error.message,
  }),
  render: (result) => {
    if (result.status === 'error') return `Error: ${result.error ?? ''}`;
    return result.count === 0
      ? `'${result.node_id}' has no neighbors.`
      : `'${result.node_id}' has ${result.count} neighbor(s): ${result.neighbors.join(', ')}`;
  },
});
