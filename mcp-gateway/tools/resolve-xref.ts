import { z } from 'zod';
import { defineTool, READ_ONLY } from '../registry.js';

export const resolveXrefTool = defineTool({
  name: 'resolve_xref',
  title: 'Resolve a cross-reference',
  description:
    "Resolve a cross-reference to the node it names: a uid (@uid, <xref:uid>, xref:uid, optionally ?view=moniker), a site path as the docs write links (/guide/build, guide/build.md#section) or a URL of an ingested site. Returns the node's resource URI, title, label, source, site path and, for a #anchor, the section. A path names the page across versions: the newest released one unless moniker asks for another. moniker overrides the link's ?view=. An unknown target returns an error listing the closest uids and titles.",
  input: z.strictObject({
    xref: z
      .string()
      .min(1)
      .describe('@uid, <xref:uid>, xref:uid, a uid, a site path (/a/page#section) or a URL'),
    moniker: z
      .string()
      .optional()
      .describe('Docs version: "latest", a date (2025-11-25), a release (v2) or draft'),
  }),
  output: z.object({
    uid: z.string(),
    label: z.string(),
    title: z.string(),
    uri: z.string(),
    moniker: z.string(),
    source: z.string().nullable(),
    path: z.string().nullable(),
    section: z.object({ anchor: z.string(), heading: z.string() }).nullable(),
  }),
  annotations: READ_ONLY,
  access: 'read',
  handler: async (args, { services, scope }) =>
    services.catalog.resolveXref(scope, {
      xref: args.xref,
      ...(args.moniker === undefined ? {} : { moniker: args.moniker }),
    }),
  render: (result) =>
    `${result.title}${result.section ? ` § ${result.section.heading}` : ''} (${result.label} ${result.uid}, ${result.moniker}): ${result.uri}${result.section ? `#${result.section.anchor}` : ''}`,
});
