import { z } from 'zod';
import { defineTool, READ_ONLY } from '../registry.js';

export const resolveXrefTool = defineTool({
  name: 'resolve_xref',
  title: 'Resolve a cross-reference',
  description:
    "Resolve a cross-reference found in catalog text (@uid, <xref:uid>, xref:uid, optionally ?view=moniker) to the node it names: its current resource URI, title and label. moniker overrides the link's ?view=. An unknown uid returns an error listing the closest uids and titles.",
  input: z.strictObject({
    xref: z.string().min(1).describe('@uid, <xref:uid>, xref:uid or a bare uid'),
    moniker: z.string().optional().describe('Docs version: "latest" or YYYY-MM'),
  }),
  output: z.object({
    uid: z.string(),
    label: z.string(),
    title: z.string(),
    uri: z.string(),
    moniker: z.string(),
  }),
  annotations: READ_ONLY,
  access: 'read',
  handler: async (args, { services, scope }) =>
    services.catalog.resolveXref(scope, {
      xref: args.xref,
      ...(args.moniker === undefined ? {} : { moniker: args.moniker }),
    }),
  render: (result) =>
    `${result.title} (${result.label} ${result.uid}, ${result.moniker}): ${result.uri}`,
});
