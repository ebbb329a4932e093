import { z } from 'zod';
import {
  attributesSchema,
  MAX_BATCH_ITEMS,
  nodeIdSchema,
  weightSchema,
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
 * `network_add_edges`: many `network_add_edge` calls in one. Each item answers as that tool
 * would (success, or error with the reason); the added edges are appended together, so a call
 * either writes all its successes or nothing.
 */

const DEFAULT_WEIGHT = 1.0;

const input = z.strictObject({
  network_name: networkNameField.describe('Name of the target network, e.g. "module_deps".'),
  edges: batchItems(
    z.strictObject({
      source: nodeIdSchema.describe('Source node ID, e.g. "agents".'),
      target: nodeIdSchema.describe('Target node ID, e.g. "logging".'),
      weight: weightSchema
        .optional()
        .describe(`Edge weight (default ${DEFAULT_WEIGHT.toFixed(1)}).`),
      attributes: attributesSchema
        .optional()
        .describe('Flat key-value attributes, e.g. {"relation": "depends_on"}.'),
    }),
    'edges',
  ).describe(
    `The edges to add, 1 to ${String(MAX_BATCH_ITEMS)}, e.g. [{"source": "agents", "target": "logging"}].`,
  ),
});

const output = z.object({
  status: batchStatusField,
  network_name: z.string(),
  added: z.number().int().describe('Edges added by this call.'),
  errors: z.number().int().describe('Edges not added; each result says why.'),
  results: z
    .array(
      z.object({
        status: z.enum(['success', 'error']),
        source: z.string(),
        target: z.string(),
        weight: z.number(),
        error: statusErrorField,
      }),
    )
    .describe('One per input edge, in the same order.'),
  error: statusErrorField,
});

export const networkAddEdgesTool = defineTool({
  name: 'network_add_edges',
  title: 'Add edges',
  description: `Adds up to ${String(MAX_BATCH_ITEMS)} directed, weighted edges between existing nodes of a network in one call (prefer it to many network_add_edge calls). Each edge answers as network_add_edge would: "success" (a new edge, even when an identical one exists) or "error" with the reason (e.g. a node that does not exist: add it with network_add_nodes first). The added edges are written together: all of them or, on failure, none. Errors as a whole when the network does not exist. Returns status ("partial" when some edges failed), counts and one result per edge, in order.`,
  input,
  output,
  annotations: appendOnly({ idempotent: false, openWorld: false }),
  access: 'network-write',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, context) => {
    const result = await context.services.networks.addEdges(
      {
        networkName: args.network_name,
        edges: args.edges.map((edge) => ({
          source: edge.source,
          target: edge.target,
          ...(edge.weight === undefined ? {} : { weight: edge.weight }),
          ...(edge.attributes === undefined ? {} : { attributes: edge.attributes }),
        })),
      },
      commandMetaOf(context),
    );
    const results = result.edges.map((edge) => ({
      status: edge.status,
      source: edge.source,
      target: edge.target,
      weight: edge.weight,
      ...(edge.error ? { error: edge.error.message } : {}),
    }));
    const added = results.filter((item) => item.status === 'success').length;
    return {
      status: batchStatus(results),
      network_name: result.networkName,
      added,
      errors: results.length - added,
      results,
    };
  },
  errorResult: (error, args) => ({
    status: 'error' as const,
    network_name: argText(args, 'network_name'),
    added: 0,
    errors: 0,
    results: [],
    error: error.message,
  }),
  render: (result) =>
    renderBatch(
      result,
      `${String(result.added)} edge(s) added, ${String(result.errors)} error(s) in '${result.network_name}'`,
      (item) => `'${item.source}' → '${item.target}'`,
    ),
});
