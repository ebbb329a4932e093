import { z } from 'zod';
import { defineTool, READ_ONLY } from '../registry.js';

const attribute = z.object({ name: z.string(), type: z.string(), description: z.string() });

const output = z.object({
  labels: z.array(
    z.object({
      label: z.string(),
      resource_type: z.string(),
      description: z.string(),
      source: z.enum(['catalog', 'requests']),
      required: z.array(attribute),
      optional: z.array(attribute),
      count: z.number().int(),
    }),
  ),
  edge_types: z.array(
    z.object({
      type: z.string(),
      description: z.string(),
      from: z.array(z.string()),
      to: z.array(z.string()),
    }),
  ),
  monikers: z.array(z.string()),
  default_moniker: z.string(),
  uid_pattern: z.string(),
  uri_template: z.string(),
  hint: z.string(),
});

const ends = (labels: readonly string[]): string => (labels.length > 0 ? labels.join('|') : 'any');

export const describeSchemaTool = defineTool({
  name: 'describe_schema',
  title: 'Describe the catalog schema',
  description:
    'Call this first when you are new to this server: it returns the closed vocabulary of the knowledge graph (node labels with their required and optional attributes and resource types, typed edges with the labels allowed at each end, the monikers in use and the resource URI template cogitave://{type}/{id}) plus a hint on planning multi-hop queries, so you can plan get_related / query_graph calls instead of listing the catalog.',
  input: z.strictObject({}),
  output,
  annotations: READ_ONLY,
  access: 'read',
  handler: async (_args, { services, scope }) => {
    const schema = await services.catalog.describeSchema(scope);
    return {
      labels: schema.labels.map((label) => ({
        label: label.label,
        resource_type: label.resourceType,
        description: label.description,
        source: label.source,
        required: [...label.required],
        optional: [...label.optional],
        count: label.count,
      })),
      edge_types: schema.edgeTypes.map((edge) => ({
        type: edge.type,
        description: edge.description,
        from: [...edge.from],
        to: [...edge.to],
      })),
      monikers: [...schema.monikers],
      default_moniker: schema.defaultMoniker,
      uid_pattern: schema.uidPattern,
      uri_template: schema.uriTemplate,
      hint: schema.hint,
    };
  },
  render: (result) =>
    [
      'Labels:',
      ...result.labels.map(
        (l) =>
          `- ${l.label} (cogitave://${l.resource_type}/{id}, ${l.count} nodes): ${l.description}` +
          (l.required.length > 0
            ? ` Required: ${l.required.map((a) => `${a.name}:${a.type}`).join(', ')}.`
            : ''),
      ),
      'Edge types:',
      ...result.edge_types.map(
        (e) => `- ${ends(e.from)} -[:${e.type}]-> ${ends(e.to)}: ${e.description}`,
      ),
      `Monikers: ${result.monikers.join(', ')} (default ${result.default_moniker})`,
      `URI template: ${result.uri_template}`,
      result.hint,
    ].join('\n'),
});
