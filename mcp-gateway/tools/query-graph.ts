import { z } from 'zod';
import { edgeTypeNames, labelNames } from '../../services/catalog/vocabulary.js';
import { GRAPH_QUERY_BOUNDS } from '../../services/graph-query/bounds.js';
import { defineTool, READ_ONLY } from '../registry.js';

/**
 * `query_graph`: the bounded, read-only openCypher subset over the catalog graph and the
 * requests. The service parses, checks every bound and compiles to parameterised SQL; any
 * violated bound comes back as a tool error naming it (`details.bound`).
 */

const { maxHops, defaultLimit, maxLimit } = GRAPH_QUERY_BOUNDS;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const input = z.strictObject({
  query: z
    .string()
    .min(1, { error: 'query must not be empty' })
    .max(10_000, { error: 'query must be at most 10000 characters' })
    .describe('An openCypher query of the supported subset (see the description).'),
  params: z
    .record(z.string(), z.union([scalar, z.array(scalar)]))
    .optional()
    .describe('Values for $name placeholders: strings, numbers, booleans, null or lists of those.'),
});

const output = z.object({
  columns: z.array(z.string()).describe('The RETURN aliases, in order.'),
  rows: z
    .array(z.record(z.string(), z.unknown()))
    .describe('One object per row keyed by alias; nodes come as {uid, label, title, uri}.'),
  truncated: z.boolean().describe('More rows matched than the LIMIT let through.'),
  rowCount: z.number().int(),
  elapsedMs: z.number(),
});

const description = [
  'Runs a bounded, read-only openCypher query over the knowledge graph (catalog nodes, typed edges and requests) and returns rows. Call describe_schema first to learn the vocabulary.',
  `Subset: MATCH with comma-separated path patterns — nodes (v:Label {prop: value}), relationships -[:type]->, <-[:type]-, -[:a|b]-, variable length *1..${maxHops} (upper bound required, at most ${maxHops}); optional WHERE with =, <>, <, <=, >, >=, STARTS WITH, ENDS WITH, CONTAINS, IN, IS [NOT] NULL, AND/OR/NOT and parentheses over properties and $params; RETURN [DISTINCT] variables, properties and count(*)/count(x) with AS aliases; ORDER BY ... [ASC|DESC]; SKIP; LIMIT.`,
  'Properties: uid, label, title, summary, product, monikers, and any attribute by name (u.durationInMinutes, r.stage). Variable-length paths never revisit a node.',
  `Labels: ${labelNames.join(', ')}. Relationship types: ${edgeTypeNames.join(', ')}.`,
  `Bounds: read-only (no CREATE/MERGE/SET/DELETE/REMOVE, CALL, UNION, OPTIONAL MATCH, WITH); LIMIT ≤ ${maxLimit} (default ${defaultLimit}) with truncated=true when more rows matched; a per-query timeout; patterns must be connected (no cartesian products); patterns estimated to expand to too many paths are refused — anchor a node by uid. A violated bound is an error naming it, never a silently cut result.`,
  'Example: MATCH (u:Unit)-[:partOf]->(m:Module {uid: $module}) WHERE u.durationInMinutes <= 10 RETURN u.uid AS unit, u.title AS title ORDER BY unit LIMIT 20 with params {"module": "..."}.',
].join('\n');

const renderValue = (value: unknown): string => {
  if (value !== null && typeof value === 'object' && 'uid' in value && 'label' in value) {
    return `(${String(value.uid)}:${String(value.label)})`;
  }
  return JSON.stringify(value);
};

export const queryGraphTool = defineTool({
  name: 'query_graph',
  title: 'Query the graph',
  description,
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  handler: async (args, { services, scope, signal, progress }) =>
    services.graphQuery.run(scope, args.query, args.params ?? {}, { signal, progress }),
  render: (result) => {
    const header = `${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? ' (truncated: more matched; raise LIMIT up to 1000 or narrow the query)' : ''} in ${result.elapsedMs} ms`;
    const lines = result.rows.map((row) =>
      result.columns.map((column) => `${column}: ${renderValue(row[column])}`).join(' | '),
    );
    return [header, ...lines].join('\n');
  },
});
