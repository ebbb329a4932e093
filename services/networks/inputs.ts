import { z } from 'zod';

/**
 * Input validation of the Network commands and queries, run before anything is read or
 * appended: a bad input is an InvalidArgument naming each field and what it must be. The
 * same schemas shape the `network_*` tools' inputs.
 */

export const NETWORK_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const MAX_NODE_ID_LENGTH = 256;
export const MAX_DESCRIPTION_LENGTH = 2000;
export const MAX_ATTRIBUTES = 64;
export const MAX_ATTRIBUTE_KEY_LENGTH = 128;
export const MAX_ATTRIBUTE_STRING_LENGTH = 4096;
/** Serialised JSON of a node's `data`, in UTF-8 bytes. */
export const MAX_DATA_BYTES = 64 * 1024;

export const networkNameSchema = z
  .string({ error: 'must be a string: the network name' })
  .regex(NETWORK_NAME_PATTERN, {
    error:
      'must be 1-128 characters of letters, digits, "_", "." or "-", starting with a letter or digit (e.g. "module_deps")',
  });

export const nodeIdSchema = z
  .string({ error: 'must be a string: the node id' })
  .min(1, { error: 'must not be empty: the node id' })
  .max(MAX_NODE_ID_LENGTH, { error: `must be at most ${MAX_NODE_ID_LENGTH} characters` });

const attributeValueSchema = z.union(
  [
    z.string().max(MAX_ATTRIBUTE_STRING_LENGTH, {
      error: `must be at most ${MAX_ATTRIBUTE_STRING_LENGTH} characters`,
    }),
    z.number(),
    z.boolean(),
    z.null(),
  ],
  { error: 'must be a string, a finite number, a boolean or null (attributes are flat)' },
);

export const attributesSchema = z
  .record(
    z
      .string()
      .min(1, { error: 'attribute names must not be empty' })
      .max(MAX_ATTRIBUTE_KEY_LENGTH, {
        error: `attribute names must be at most ${MAX_ATTRIBUTE_KEY_LENGTH} characters`,
      }),
    attributeValueSchema,
    { error: 'must be an object of scalar values, e.g. {"layer": 2}' },
  )
  .refine((value) => Object.keys(value).length <= MAX_ATTRIBUTES, {
    error: `must have at most ${MAX_ATTRIBUTES} attributes`,
  });

const jsonBytes = (value: unknown): number | undefined => {
  try {
    // undefined for values JSON cannot hold (functions, symbols), whatever the typings say.
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? undefined : Buffer.byteLength(text, 'utf8');
  } catch {
    return undefined;
  }
};

export const nodeDataSchema = z.unknown().superRefine((value, context) => {
  if (value === undefined) return;
  const bytes = jsonBytes(value);
  if (bytes === undefined) {
    context.addIssue({ code: 'custom', message: 'must be a JSON value' });
  } else if (bytes > MAX_DATA_BYTES) {
    context.addIssue({
      code: 'custom',
      message: `must be at most ${MAX_DATA_BYTES} bytes as JSON (got ${bytes}); store large payloads elsewhere and keep a reference`,
    });
  }
});

export const weightSchema = z.number({ error: 'must be a finite number' });

export const descriptionSchema = z
  .string({ error: 'must be a string' })
  .max(MAX_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });

export const createNetworkInputSchema = z.strictObject({
  networkName: networkNameSchema,
  description: descriptionSchema.optional(),
});

export const addNodeInputSchema = z.strictObject({
  networkName: networkNameSchema,
  nodeId: nodeIdSchema,
  data: nodeDataSchema.optional(),
  attributes: attributesSchema.optional(),
});

export const addEdgeInputSchema = z.strictObject({
  networkName: networkNameSchema,
  source: nodeIdSchema,
  target: nodeIdSchema,
  weight: weightSchema.optional(),
  attributes: attributesSchema.optional(),
});

export const nodeRefInputSchema = z.strictObject({
  networkName: networkNameSchema,
  nodeId: nodeIdSchema,
});

export type CreateNetworkInput = z.input<typeof createNetworkInputSchema>;
export type AddNodeInput = z.input<typeof addNodeInputSchema>;
export type AddEdgeInput = z.input<typeof addEdgeInputSchema>;

/** Items one `addNodes` / `addEdges` call may carry; more is refused before anything is read. */
export const MAX_BATCH_ITEMS = 1000;

/** An array of 1 to MAX_BATCH_ITEMS `item`s; the messages name `what` and the bound. */
export const batchOf = <T extends z.ZodType>(item: T, what: 'nodes' | 'edges') =>
  z
    .array(item, { error: `must be an array of ${what}` })
    .min(1, { error: `must hold at least one of the ${what} to add` })
    .max(MAX_BATCH_ITEMS, {
      error: `must hold at most ${MAX_BATCH_ITEMS} ${what} per call; send the rest in further calls`,
    });

export const nodeItemSchema = z.strictObject({
  nodeId: nodeIdSchema,
  data: nodeDataSchema.optional(),
  attributes: attributesSchema.optional(),
});

export const edgeItemSchema = z.strictObject({
  source: nodeIdSchema,
  target: nodeIdSchema,
  weight: weightSchema.optional(),
  attributes: attributesSchema.optional(),
});

export const addNodesInputSchema = z.strictObject({
  networkName: networkNameSchema,
  nodes: batchOf(nodeItemSchema, 'nodes'),
});

export const addEdgesInputSchema = z.strictObject({
  networkName: networkNameSchema,
  edges: batchOf(edgeItemSchema, 'edges'),
});

export type AddNodesInput = z.input<typeof addNodesInputSchema>;
export type AddEdgesInput = z.input<typeof addEdgesInputSchema>;
