import { z } from 'zod';
import { MAX_SEARCH_LIMIT } from '../../services/search/service.js';
import { defineTool, READ_ONLY } from '../registry.js';
import { componentScoresSchema } from './docs-search.js';

const CODE_ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2"><path d="m8 6-6 6 6 6M16 6l6 6-6 6"/></svg>',
  ).toString('base64');

const input = z.strictObject({
  query: z.string().min(1).max(1000).describe('What the code should do or use (API names work).'),
  language: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .describe('Only samples in this language tag (typescript, bash, ...), case-insensitive.'),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe('Results (default 10).'),
});

const output = z.object({
  results: z.array(
    z.object({
      uid: z.string(),
      uri: z.string(),
      title: z.string(),
      language: z.string(),
      code: z.string(),
      compiled: z
        .boolean()
        .nullable()
        .describe(
          'true: passed the compile check at ingest (TypeScript/JavaScript); null: a language that is not checked. Samples known not to compile are not returned.',
        ),
      source_uid: z.string().nullable().describe('The node the sample was taken from.'),
      source_uri: z.string().nullable(),
      scores: componentScoresSchema,
    }),
  ),
});

export const codeSampleSearchTool = defineTool({
  name: 'code_sample_search',
  title: 'Search code samples',
  description:
    'Finds code samples of the docs by what they do or the APIs they use. Code blocks of every language are searched (diagrams are not samples); TypeScript and JavaScript that failed the compile check at ingest are left out. Returns the code, its language, and the node it came from (source_uri) for context.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: CODE_ICON,
  handler: async (args, context) => {
    const hits = await context.services.search.codeSampleSearch(context.scope, {
      query: args.query,
      language: args.language,
      limit: args.limit,
    });
    return {
      results: hits.map((hit) => ({
        uid: hit.uid,
        uri: hit.uri,
        title: hit.title,
        language: hit.language,
        code: hit.code,
        compiled: hit.compiled,
        source_uid: hit.source?.uid ?? null,
        source_uri: hit.source?.uri ?? null,
        scores: hit.scores,
      })),
    };
  },
  render: (result) =>
    result.results.length === 0
      ? 'No matching checked code samples.'
      : result.results
          .map(
            (hit, index) =>
              `${index + 1}. ${hit.title} (${hit.language}${hit.source_uri ? `, from ${hit.source_uri}` : ''})\n\`\`\`${hit.language}\n${hit.code}\n\`\`\``,
          )
          .join('\n\n'),
});
