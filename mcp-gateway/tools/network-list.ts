import { z } from 'zod';
import {
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  type NetworkSummary,
} from '../../services/networks/service.js';
import { defineTool, READ_ONLY } from '../registry.js';
import { NETWORK_TOOL_ICON, statusErrorField } from './network-create.js';

/** `network_list`: a page of networks from the read model, in name order. */

const input = z.strictObject({
  cursor: z
    .string()
    .max(1000)
    .optional()
    .describe('next_cursor of the previous page; omit for the first page.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIST_LIMIT)
    .optional()
    .describe(`Page size, 1–${MAX_LIST_LIMIT} (default ${DEFAULT_LIST_LIMIT}).`),
});

const summarySchema = z.object({
  network_name: z.string(),
  uri: z.string(),
  description: z.string().nullable(),
  node_count: z.number().int(),
  edge_count: z.number().int(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const output = z.object({
  status: z.enum(['success', 'error']),
  networks: z.array(summarySchema),
  /** Pass it back as `cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
  error: statusErrorField,
});

const summary = (network: NetworkSummary): z.infer<typeof summarySchema> => ({
  network_name: network.name,
  uri: network.uri,
  description: network.description,
  node_count: network.nodeCount,
  edge_count: network.edgeCount,
  created_by: network.createdBy,
  created_at: network.createdAt,
  updated_at: network.updatedAt,
});

export const networkListTool = defineTool({
  name: 'network_list',
  title: 'List networks',
  description:
    'Lists the networks (name order) with their description, node and edge counts, creator and times. Page with cursor/next_cursor (next_cursor is null on the last page). Use network_get_neighbors to explore one, network_create to start a new one.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, { services, scope }) => {
    const page = await services.networks.listNetworks(scope, {
      cursor: args.cursor,
      limit: args.limit,
    });
    return {
      status: 'success' as const,
      networks: page.networks.map(summary),
      next_cursor: page.nextCursor,
    };
  },
  errorResult: (error) => ({
    status: 'error' as const,
    networks: [],
    next_cursor: null,
    error: error.message,
  }),
  render: (result) => {
    if (result.status === 'error') return `Error: ${result.error ?? ''}`;
    return [
      result.networks.length === 0 ? 'No networks.' : `${result.networks.length} network(s):`,
      ...result.networks.map(
        (n) =>
          `- ${n.network_name}: ${n.node_count} node(s), ${n.edge_count} edge(s)${
            n.description ? ` — ${n.description}` : ''
          }`,
      ),
      result.next_cursor ? `More: call again with cursor "${result.next_cursor}".` : '',
    ]
      .filter((line) => line !== '')
      .join('\n');
  },
});
