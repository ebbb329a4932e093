import { z } from 'zod';
import { labelNames, labelSpec } from '../../services/catalog/vocabulary.js';
import { previewOf } from '../../services/search/readable.js';
import { MAX_SEARCH_LIMIT } from '../../services/search/service.js';
import { defineTool, READ_ONLY } from '../registry.js';

const SEARCH_ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2"><circle cx="11" cy="11" r="7"/><path d="m20 20-4-4"/></svg>',
  ).toString('base64');

const catalogLabels = labelNames.filter((label) => labelSpec(label)?.source === 'catalog');

export const componentScoresSchema = z.object({
  bm25: z.number().describe('BM25F score of the query (0: no term matched).'),
  vector: z.number().describe('Cosine similarity of query and document embeddings.'),
  graph: z
    .number()
    .describe(
      'What the graph rerank changed in the fused score: proximity to the top hits over typed edges and centrality add; similarity smoothing among the top hits moves either way.',
    ),
  fused: z.number().describe('The ranking score: weighted fusion of the normalised components.'),
});

const input = z.strictObject({
  query: z.string().min(1).max(1000).describe('What to look for, in words.'),
  types: z
    .array(z.enum(catalogLabels as [string, ...string[]]))
    .optional()
    .describe(`Only nodes of these labels (${catalogLabels.join(', ')}).`),
  product: z.string().min(1).optional().describe('Only nodes of this product.'),
  moniker: z
    .string()
    .min(1)
    .optional()
    .describe('Only nodes in this docs version (`latest` or YYYY-MM[-DD]).'),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe('Results (default 10).'),
});

const output = z.object({
  results: z.array(
    z.object({
      uid: z.string(),
      uri: z.string().describe('Resource URI; read it for the full content.'),
      type: z.string().describe('Node label.'),
      title: z.string(),
      summary: z.string(),
      product: z.string().nullable(),
      monikers: z.array(z.string()).describe('Versions this node (the version returned) is in.'),
      page: z
        .string()
        .nullable()
        .describe('The page across versions (site path without the version folder).'),
      versions: z
        .array(z.string())
        .describe(
          'Every version the page exists in, newest released first; pass one as moniker to docs_search or docs_fetch.',
        ),
      section: z
        .object({
          anchor: z.string().nullable().describe('null: the text before the first heading.'),
          heading: z.string(),
          path: z.array(z.string()).describe('Headings from the top of the page down to it.'),
          excerpt: z.string().describe('A few hundred words of the section.'),
        })
        .nullable()
        .describe('The section of the page that answers best (docs_fetch with section reads it).'),
      last_modified: z.string(),
      scores: componentScoresSchema,
      ranks: z
        .object({
          bm25: z.number().int().nullable(),
          vector: z.number().int().nullable(),
          graph: z.number().int().nullable(),
          fused: z.number().int(),
        })
        .describe('1-based rank in each component list (null: not in it).'),
    }),
  ),
});

/** The structured result (the console renders it). */
export type DocsSearchOutput = z.infer<typeof output>;

/** Later lines of an excerpt (its code blocks) indented as the list item they belong to. */
const indentLines = (text: string): string => text.replace(/\n/g, '\n   ');

export const docsSearchTool = defineTool({
  name: 'docs_search',
  title: 'Search the docs',
  description:
    'Hybrid search (BM25 + embedding + link graph) over the catalog: docs, articles, units, modules, learning paths, ADRs and skills (code samples only with types: ["CodeSample"]; code_sample_search finds code). Each page is one hit however many versions it has: the newest released version unless moniker asks for another, with the versions it exists in, and the section that answers best (heading path, anchor, excerpt). Filter by types, product and moniker; each hit shows its component scores; read a page with docs_fetch (uid, optionally section) or its uri.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: SEARCH_ICON,
  handler: async (args, context) => {
    // The first search after a start waits for the index to be built (seconds on a large
    // catalog): a client that asked for progress hears why.
    const building = !context.services.search.status().ready;
    if (building) await context.progress(0, 1, 'building the search index');
    const hits = await context.services.search.search(context.scope, {
      query: args.query,
      types: args.types,
      product: args.product,
      moniker: args.moniker,
      limit: args.limit,
    });
    if (building) await context.progress(1, 1, 'search index built');
    return {
      results: hits.map((hit) => ({
        uid: hit.uid,
        uri: hit.uri,
        type: hit.type,
        title: hit.title,
        summary: hit.summary,
        product: hit.product,
        monikers: [...hit.monikers],
        page: hit.page,
        versions: [...hit.versions],
        section: hit.section ? { ...hit.section, path: [...hit.section.path] } : null,
        last_modified: hit.lastModified,
        scores: hit.scores,
        ranks: hit.ranks,
      })),
    };
  },
  render: (result) =>
    result.results.length === 0
      ? 'No matching nodes.'
      : result.results
          .map(
            (hit, index) =>
              `${index + 1}. ${hit.title} (${hit.type}, ${hit.uri})${hit.versions.length > 1 ? ` versions ${hit.versions.join(', ')}` : ''}${hit.summary ? `\n   ${hit.summary}` : ''}${hit.section ? `\n   § ${hit.section.path.join(' › ')}${hit.section.anchor ? ` (#${hit.section.anchor})` : ''}: ${indentLines(previewOf(hit.section.excerpt, 300))}` : ''}\n   score ${hit.scores.fused.toFixed(3)} = bm25 ${hit.scores.bm25.toFixed(2)}, vector ${hit.scores.vector.toFixed(2)}, graph ${hit.scores.graph.toFixed(2)}`,
          )
          .join('\n'),
});
