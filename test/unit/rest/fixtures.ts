import { z } from 'zod';
import { defineTool } from '../../../mcp-gateway/registry.js';

/** A read tool whose arguments cover every query-string shape: arrays, numbers, objects. */
export const shapesTool = defineTool({
  name: 'shapes',
  title: 'Shapes',
  description: 'Echoes its arguments.',
  input: z.strictObject({
    query: z.string().describe('Free text.'),
    types: z.array(z.enum(['doc', 'unit', 'module'])).optional(),
    depths: z.array(z.number().int()).optional(),
    limit: z.number().int().min(1).max(10).optional(),
    exact: z.boolean().optional(),
    params: z.record(z.string(), z.unknown()).optional().describe('Named parameters.'),
    uid: z.union([z.string(), z.number()]).optional(),
  }),
  output: z.object({ echoed: z.record(z.string(), z.unknown()) }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  access: 'read',
  handler: (args) => Promise.resolve({ echoed: args }),
  render: () => '',
});

export const writeTool = defineTool({
  ...shapesTool,
  name: 'shapes_write',
  access: 'propose',
  annotations: { ...shapesTool.annotations, readOnlyHint: false },
});
