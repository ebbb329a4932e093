import { z } from 'zod';
import { attributesSchema, nodeDataSchema, nodeIdSchema } from '../../services/networks/inputs.js';
import { appendOnly, defineTool } from '../registry.js';
import {
  argText,
  commandMetaOf,
  NETWORK_TOOL_ICON,
  networkNameField,
  statusErrorField,
} from './network-create.js';

/** `network_add_node` (seed 003): adds a node; adding an existing one is a no-op (`duplicate`). */

const input = z.strictObject({
  network_name: networkNameField.describe('Name of the target network, e.g. "module_deps".'),
  node_id: nodeIdSchema.describe('Unique identifier for the new node (1–256 characters).'),
  data: nodeDataSchema
    .optional()
    .describe('Payload data for the node: any JSON value up to 64 KiB, e.g. "Core".'),
  attributes: attributesSchema
    .optional()
    .describe(
      'Flat key-value attributes (string, number, boolean or null values), e.g. {"layer": 2}.',
    ),
});

const output = z.object({
  status: z.enum(['success', 'duplicate', 'error']),
  node_id: z.string(),
  message: z.string(),
  error: statusErrorField,
});

export const networkAddNodeTool = defineTool({
  name: 'network_add_node',
  title: 'Add a node',
  description:
    'Adds a node (with optional JSON data and flat attributes) to an existing network. Adding a node ID that already exists changes nothing and answers status "duplicate". Errors when the network does not exist (create it with network_create). Returns status, node_id and a message.',
  input,
  output,
  annotations: appendOnly({ idempotent: true, openWorld: false }),
  access: 'network-write',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, context) => {
    const result = await context.services.networks.addNode(
      {
        networkName: args.network_name,
        nodeId: args.node_id,
        ...(args.data === undefined ? {} : { data: args.data }),
        ...(args.attributes === undefined ? {} : { attributes: args.attributes }),
      },
      commandMetaOf(context),
    );
    return {
      status: result.status,
      node_id: result.nodeId,
      message:
        result.status === 'success'
          ? `Node '${result.nodeId}' added`
          : `Node '${result.nodeId}' already exists in '${result.networkName}'; nothing changed`,
    };
  },
  errorResult: (error, args) => ({
    status: 'error' as const,
    node_id: argText(args, 'node_id'),
    message: error.message,
    error: error.message,
  }),
  render: (result) => (result.status === 'error' ? `Error: ${result.error ?? ''}` : result.message),
});
