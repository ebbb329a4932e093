import { z } from 'zod';
import { defineTool, READ_ONLY } from '../registry.js';

const output = z.object({
  uid: z.string(),
  label: z.string(),
  title: z.string(),
  summary: z.string(),
  body: z.string(),
  product: z.string().nullable(),
  monikers: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  sourcePath: z.string().nullable(),
  contentHash: z.string(),
  lastModified: z.string(),
  uri: z.string(),
  section: z.object({ anchor: z.string(), heading: z.string() }).nullable(),
  edges: z.object({
    outbound: z.array(
      z.object({
        type: z.string(),
        uid: z.string(),
        title: z.string().nullable(),
        ordinal: z.number().int(),
        origin: z.string(),
      }),
    ),
    inbound: z.array(z.object({ type: z.string(), uid: z.string(), title: z.string().nullable() })),
  }),
});

/** The structured result (the console renders it). */
export type DocsFetchOutput = z.infer<typeof output>;

export const docsFetchTool = defineTool({
  name: 'docs_fetch',
  title: 'Fetch a catalog node',
  description:
    'Fetch one node of the knowledge graph (Doc, Article, Unit, Module, LearningPath, ADR, Skill, CodeSample) by uid: its full canonical content (Markdown body or code), attributes, monikers, contentHash, lastModified, resource URI and its typed edges in both directions. Give moniker to require a version ("latest", a date, a release or draft) and section (a heading’s anchor, as docs_search and resolve_xref name it) to read one section only: body is then that heading down to the next of its level. Unknown uids return an error listing the closest uids; an unknown section lists the page’s anchors.',
  input: z.strictObject({
    uid: z.string().min(1).describe('Node uid, e.g. cogitave.core.architecture'),
    moniker: z
      .string()
      .optional()
      .describe('Docs version: "latest" (default), a date (2025-11-25), a release (v2) or draft'),
    section: z
      .string()
      .min(1)
      .optional()
      .describe('Anchor of one heading (e.g. tools-in-sampling): return that section only'),
  }),
  output,
  annotations: READ_ONLY,
  access: 'read',
  handler: async (args, { services, scope }) => {
    const node = await services.catalog.fetchNode(scope, {
      uid: args.uid,
      ...(args.moniker === undefined ? {} : { moniker: args.moniker }),
      ...(args.section === undefined ? {} : { section: args.section }),
    });
    return {
      ...node,
      monikers: [...node.monikers],
      attributes: { ...node.attributes },
      edges: { outbound: [...node.edges.outbound], inbound: [...node.edges.inbound] },
    };
  },
  render: (node) =>
    [
      `# ${node.title}${node.section ? ` § ${node.section.heading}` : ''}`,
      `${node.label} ${node.uid} · ${node.uri} · monikers ${node.monikers.join(', ')} · modified ${node.lastModified}`,
      node.summary,
      '',
      node.body,
      '',
      node.edges.outbound.length > 0
        ? `Links out: ${node.edges.outbound.map((e) => `${e.type} → ${e.uid}`).join('; ')}`
        : '',
      node.edges.inbound.length > 0
        ? `Links in: ${node.edges.inbound.map((e) => `${e.uid} -${e.type}→`).join('; ')}`
        : '',
    ]
      .filter((line, index) => index < 4 || line !== '')
      .join('\n'),
});
