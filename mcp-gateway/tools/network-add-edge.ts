import { z } from 'zod';
import { attributesSchema, nodeIdSchema, weightSchema } from '../../services/networks/inputs.js';
import { appendOnly, defineTool } from '../registry.js';
import {
  argText,
  commandMetaOf,
  NETWORK_TOOL_ICON,
  networkNameField,
  statusErrorField,
} from './network-create.js';

/** `network_add_edge` (seed 003): each call adds a new directed, weighted edge. */

const DEFAULT_WEIGHT = 1.0;

const input = z.strictObject({
  network_name: networkNameField.describe('Name of the target network, e.g. "module_deps".'),
  source: nodeIdSchema.describe('Source node ID, e.g. "agents".'),
  target: nodeIdSchema.describe('Target node ID, e.g. "logging".'),
  weight: weightSchema.optional().describe(`Edge weight (default ${DEFAULT_WEIGHT.toFixed(1)}).`),
  attributes: attributesSchema
    .optional()
    .describe('Flat key-value attributes, e.g. {"relation": "depends_on"}.'),
});

const output = z.object({
  status: z.enum(['success', 'error']),
  source: z.string(),
  target: z.string(),
  weight: z.number(),
  error: statusErrorField,
});

export const networkAddEdgeTool = defineTool({
  name: 'network_add_edge',
  title: 'Add an edge',
  description:
    'Adds a directed, weighted edge from source to target, two existing nodes of a network. Not idempotent: every call adds a new edge, even when an identical one exists. Errors when the network or either node does not exist (add nodes with network_add_node first). Returns status, source, target and weight.',
  input,
  output,
  annotations: appendOnly({ idempotent: false, openWorld: false }),
  access: 'network-write',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, context) => {
    const result = await context.services.networks.addEdge(
      {
        networkName: args.network_name,
        source: args.source,
        target: args.target,
        ...(args.weight === undefined ? {} : { weight: args.weight }),
        ...(args.attributes === undefined ? {} : { attributes: args.attributes }),
      },
      commandMetaOf(context),
    );
    return {
      status: 'success' as const,
      source: result.source,
      target: result.target,
      weight: result.weight,
    };
  },
  errorResult: (error, args) => {
    const weight =
      typeof args === 'object' && args !== null && 'weight' in args ? args.weight : undefined;
    return {
      status: 'error' as const,
      source: argText(args, 'source'),
      target: argText(args, 'target'),
      weight: typeof weight === 'number' ? weight : DEFAULT_WEIGHT,
      error: error.message,
    };
  },
  render: (result) =>
    result.status === 'error'
      ? `Error: ${result.error ?? ''}`
      : `Edge '${result.source}' → '${result.target}' (weight ${result.weight}) added`,
});
