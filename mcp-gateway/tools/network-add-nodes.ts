import { z } from 'zod';
import {
  attributesSchema,
  MAX_BATCH_ITEMS,
  nodeDataSchema,
  nodeIdSchema,
} from '../../services/networks/inputs.js';
import { appendOnly, defineTool } from '../registry.js';
import {
  argText,
  batchItems,
  batchStatus,
  batchStatusField,
  commandMetaOf,
  NETWORK_TOOL_ICON,
  networkNameField,
  renderBatch,
  statusErrorField,
} from './network-create.js';

/**
 * `network_add_nodes`: many `network_add_node` calls in one. Each item answers as that tool
 * would (success, duplicate, error with the reason); the added nodes are appended together,
 * so a call either writes all its successes or nothing.
 */

const input = z.strictObject({
  network_name: networkNameField.describe('Name of the target network, e.g. "module_deps".'),
  nodes: batchItems(
    z.strictObject({
      node_id: nodeIdSchema.describe('Unique identifier for the node (1–256 characters).'),
      data: nodeDataSchema.optional().describe('Payload data: any JSON value up to 64 KiB.'),
      attributes: attributesSchema
        .optional()
        .describe('Flat key-value attributes, e.g. {"layer": 2}.'),
    }),
    'nodes',
  ).describe(`The nodes to add, 1 to ${String(MAX_BATCH_ITEMS)}, e.g. [{"node_id": "networks"}].`),
});

const output = z.object({
  status: batchStatusField,
  network_name: z.string(),
  added: z.number().int().describe('Nodes added by this call.'),
  duplicates: z.number().int().describe('Nodes that existed already (or were named twice).'),
  errors: z.number().int().describe('Nodes not added; each result says why.'),
  results: z
    .array(
      z.object({
        status: z.enum(['success', 'duplicate', 'error']),
        node_id: z.string(),
        message: z.string(),
        error: statusErrorField,
      }),
    )
    .describe('One per input node, in the same order.'),
  error: statusErrorField,
});

export const networkAddNodesTool = defineTool({
  name: 'network_add_nodes',
  title: 'Add nodes',
  description: `Adds up to ${String(MAX_BATCH_ITEMS)} nodes to an existing network in one call (prefer it to many network_add_node calls). Each node answers as network_add_node would: "success", "duplicate" (it existed, or is named twice in the call; nothing changed) or "error" with the reason. The added nodes are written together: all of them or, on failure, none. Errors as a whole when the network does not exist (create it with network_create). Returns status ("partial" when some nodes failed), counts and one result per node, in order.`,
  input,
  output,
  annotations: appendOnly({ idempotent: true, openWorld: false }),
  access: 'network-write',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, context) => {
    const result = await context.services.networks.addNodes(
      {
        networkName: args.network_name,
        nodes: args.nodes.map((node) => ({
          nodeId: node.node_id,
          ...(node.data === undefined ? {} : { data: node.data }),
          ...(node.attributes === undefined ? {} : { attributes: node.attributes }),
        })),
      },
      commandMetaOf(context),
    );
    const results = result.nodes.map((node) => ({
      status: node.status,
      node_id: node.nodeId,
      message:
        node.status === 'success'
          ? `Node '${node.nodeId}' added`
          : node.status === 'duplicate'
            ? `Node '${node.nodeId}' already exists in '${result.networkName}'; nothing changed`
            : (node.error?.message ?? 'not added'),
      ...(node.error ? { error: node.error.message } : {}),
    }));
    const count = (status: string) => results.filter((item) => item.status === status).length;
    return {
      status: batchStatus(results),
      network_name: result.networkName,
      added: count('success'),
      duplicates: count('duplicate'),
      errors: count('error'),
      results,
    };
  },
  errorResult: (error, args) => ({
    status: 'error' as const,
    network_name: argText(args, 'network_name'),
    added: 0,
    duplicates: 0,
    errors: 0,
    results: [],
    error: error.message,
  }),
  render: (result) =>
    renderBatch(
      result,
      `${String(result.added)} node(s) added, ${String(result.duplicates)} duplicate(s), ${String(result.errors)} error(s) in '${result.network_name}'`,
      (item) => item.node_id,
    ),
});
