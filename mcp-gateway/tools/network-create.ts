import { z } from 'zod';
import type { CommandMetadata } from '../../services/commands/metadata.js';
import { batchOf, descriptionSchema, networkNameSchema } from '../../services/networks/inputs.js';
import { appendOnly, defineTool, type ToolContext } from '../registry.js';

/**
 * `network_create`: creates a named network the `network_*` tools then build. Creating one
 * that exists is a no-op answering `duplicate`. This file also holds what the network tools
 * share (command metadata, the icon). Whether a call may write at all is
 * the registry's access decision (`access: 'network-write'`).
 */

export const NETWORK_TOOL_ICON =
  'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2"><circle cx="5" cy="6" r="2.5"/><circle cx="19" cy="6" r="2.5"/><circle cx="12" cy="18" r="2.5"/><path d="M7.5 6h9M6.2 8.2l4.6 7.6M17.8 8.2l-4.6 7.6"/></svg>';

export const networkNameField = networkNameSchema.describe(
  'Name of the network: letters, digits, "_", "." or "-" (at most 128), e.g. "module_deps".',
);

/** Network tools answer errors as `{status: 'error', error}` results (seed 003). */
export const statusErrorField = z
  .string()
  .optional()
  .describe('What went wrong and what to do instead; present when status is "error".');

/** Who, when and which attempt, from the call: each tool call is a new command. */
export const commandMetaOf = (context: ToolContext): CommandMetadata => ({
  commandId: context.newId(),
  actor: context.caller.actor,
  at: context.now().toISOString(),
});

/** A string argument of a call that failed, echoed back in its error result. */
export const argText = (args: unknown, key: string): string => {
  if (typeof args !== 'object' || args === null) return '';
  const value = (args as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : '';
};

/** The items of a batch tool (`network_add_nodes`, `network_add_edges`): 1 to 1000. */
export const batchItems = batchOf;

export const batchStatusField = z
  .enum(['success', 'partial', 'error'])
  .describe(
    '"success": every item succeeded (or was a duplicate); "partial": some items failed, see results; "error": nothing was done, see error.',
  );

/** `partial` when some item failed: the others were written. */
export const batchStatus = (
  results: readonly { readonly status: string }[],
): 'success' | 'partial' =>
  results.some((item) => item.status === 'error') ? 'partial' : 'success';

const RENDERED_FAILURES = 20;

/** A batch result as text: the summary, then the items that failed (the first 20). */
export const renderBatch = <Item extends { readonly status: string; readonly error?: string }>(
  result: { readonly status: string; readonly error?: string; readonly results: readonly Item[] },
  summary: string,
  name: (item: Item) => string,
): string => {
  if (result.status === 'error') return `Error: ${result.error ?? ''}`;
  const failed = result.results.flatMap((item, index) =>
    item.status === 'error' ? [`- [${String(index)}] ${name(item)}: ${item.error ?? ''}`] : [],
  );
  const more =
    failed.length > RENDERED_FAILURES
      ? [`- … and ${String(failed.length - RENDERED_FAILURES)} more (see results)`]
      : [];
  return [summary, ...failed.slice(0, RENDERED_FAILURES), ...more].join('\n');
};

const input = z.strictObject({
  network_name: networkNameField,
  description: descriptionSchema.optional().describe('What the network models (optional).'),
});

const output = z.object({
  status: z.enum(['success', 'duplicate', 'error']),
  network_name: z.string(),
  message: z.string(),
  error: statusErrorField,
});

export const networkCreateTool = defineTool({
  name: 'network_create',
  title: 'Create a network',
  description:
    'Creates an empty named network (a directed, weighted graph) to build with network_add_node and network_add_edge. Creating a network that already exists changes nothing and answers status "duplicate". Returns status, network_name and a message. The network is readable at cogitave://network/<network_name>.',
  input,
  output,
  annotations: appendOnly({ idempotent: true, openWorld: false }),
  access: 'network-write',
  icon: NETWORK_TOOL_ICON,
  handler: async (args, context) => {
    const result = await context.services.networks.createNetwork(
      {
        networkName: args.network_name,
        ...(args.description === undefined ? {} : { description: args.description }),
      },
      commandMetaOf(context),
    );
    return {
      status: result.status,
      network_name: result.networkName,
      message:
        result.status === 'success'
          ? `Network '${result.networkName}' created`
          : `Network '${result.networkName}' already exists; nothing changed`,
    };
  },
  errorResult: (error, args) => ({
    status: 'error' as const,
    network_name: argText(args, 'network_name'),
    message: error.message,
    error: error.message,
  }),
  render: (result) => (result.status === 'error' ? `Error: ${result.error ?? ''}` : result.message),
});
