import { z } from 'zod';
import { defineTool, READ_ONLY } from '../registry.js';

const output = z.object({
  uid: z.string(),
  results: z.array(
    z.object({
      uid: z.string(),
      label: z.string(),
      title: z.string(),
      edge_type: z.string(),
      direction: z.enum(['out', 'in']),
      depth: z.number().int(),
      from: z.string(),
    }),
  ),
  truncated: z.boolean(),
});

/** The structured result (the console renders it). */
export type GetRelatedOutput = z.infer<typeof output>;

export const getRelatedTool = defineTool({
  name: 'get_related',
  title: 'Typed neighbours of a node',
  description:
    'The typed-edge neighbourhood of a catalog node: nodes it points at (direction "out"), nodes pointing at it ("in") or both, up to depth 2, optionally only some edge types (partOf, dependsOn, xref, prerequisiteOf, supersedes, relatedTo, teaches, exampleOf; see describe_schema). Each result names the edge type, direction, depth and the node it was reached from.',
  input: z.strictObject({
    uid: z.string().min(1),
    edge_types: z.array(z.string()).optional().describe('Only follow these edge types'),
    direction: z.enum(['out', 'in', 'both']).optional().describe('Default both'),
    depth: z.number().int().min(1).max(2).optional().describe('1 (default) or 2'),
  }),
  output,
  annotations: READ_ONLY,
  access: 'read',
  handler: async (args, { services, scope }) => {
    const related = await services.catalog.getRelated(scope, {
      uid: args.uid,
      ...(args.edge_types === undefined ? {} : { edgeTypes: args.edge_types }),
      ...(args.direction === undefined ? {} : { direction: args.direction }),
      ...(args.depth === undefined ? {} : { depth: args.depth }),
    });
    return {
      uid: related.uid,
      truncated: related.truncated,
      results: related.results.map((r) => ({
        uid: r.uid,
        label: r.label,
        title: r.title,
        edge_type: r.edgeType,
        direction: r.direction,
        depth: r.depth,
        from: r.from,
      })),
    };
  },
  render: (result) =>
    result.results.length === 0
      ? `No related nodes for ${result.uid}.`
      : [
          `Related to ${result.uid}:`,
          ...result.results.map((r) =>
            r.direction === 'out'
              ? `- ${r.from} -[:${r.edge_type}]-> ${r.uid} (${r.label}: ${r.title}, depth ${r.depth})`
              : `- ${r.uid} -[:${r.edge_type}]-> ${r.from} (${r.label}: ${r.title}, depth ${r.depth})`,
          ),
          ...(result.truncated ? ['(truncated: narrow edge_types or direction)'] : []),
        ].join('\n'),
});
