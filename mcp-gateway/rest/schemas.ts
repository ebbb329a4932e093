import { z } from 'zod';
import type { ToolDefinition } from '../registry.js';

/**
 * A tool's input and output as JSON Schema 2020-12 (`z.toJSONSchema`), the shape clients see
 * in MCP `tools/list`, the OpenAPI document and `llms.txt`. Arguments are described as the
 * caller sends them (`io: 'input'`: defaults make a field optional), results as they come back.
 */
export type JsonSchema = Record<string, unknown>;

export interface ToolSchemas {
  readonly input: JsonSchema;
  readonly output: JsonSchema;
  /** Shared definitions the schemas refer to (`#/$defs/...` rewritten by `refBase`). */
  readonly defs: Readonly<Record<string, JsonSchema>>;
}

/** Rewrites `#/$defs/X` references to `<refBase><prefix>X`, so definitions can be hoisted. */
const rewriteRefs = (value: unknown, refBase: string, prefix: string): unknown => {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, refBase, prefix));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')
        ? `${refBase}${prefix}${item.slice('#/$defs/'.length)}`
        : rewriteRefs(item, refBase, prefix),
    ]),
  );
};

const convert = (
  schema: z.ZodType,
  io: 'input' | 'output',
  refBase: string,
  prefix: string,
): { schema: JsonSchema; defs: Record<string, JsonSchema> } => {
  const raw = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  // The dialect is stated once by the document that embeds these schemas.
  const rest = Object.fromEntries(
    Object.entries(raw).filter(([key]) => key !== '$schema' && key !== '$defs'),
  );
  const { $defs } = raw;
  const defs = Object.fromEntries(
    Object.entries(($defs ?? {}) as Record<string, JsonSchema>).map(([name, def]) => [
      `${prefix}${name}`,
      rewriteRefs(def, refBase, prefix) as JsonSchema,
    ]),
  );
  return { schema: rewriteRefs(rest, refBase, prefix) as JsonSchema, defs };
};

/**
 * `refBase` is where hoisted definitions will live, e.g. `#/components/schemas/` in OpenAPI.
 */
export const toolSchemas = (tool: ToolDefinition, refBase = '#/$defs/'): ToolSchemas => {
  const input = convert(tool.input, 'input', refBase, `${tool.name}_input_`);
  const output = convert(tool.output, 'output', refBase, `${tool.name}_output_`);
  return { input: input.schema, output: output.schema, defs: { ...input.defs, ...output.defs } };
};

/** The JSON Schema types a property accepts (through anyOf/oneOf), `[]` when unconstrained. */
export const schemaTypes = (schema: unknown): string[] => {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as JsonSchema;
  const own = Array.isArray(s.type)
    ? (s.type as string[])
    : typeof s.type === 'string'
      ? [s.type]
      : [];
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  const nested = Array.isArray(union) ? union.flatMap(schemaTypes) : [];
  if ('const' in s && own.length === 0) own.push(typeof s.const);
  if (Array.isArray(s.enum) && own.length === 0) {
    own.push(...new Set((s.enum as unknown[]).map((value) => typeof value)));
  }
  return [...new Set([...own, ...nested])];
};

export const propertiesOf = (schema: JsonSchema): Record<string, JsonSchema> =>
  (schema.properties ?? {}) as Record<string, JsonSchema>;

export const requiredOf = (schema: JsonSchema): string[] =>
  Array.isArray(schema.required) ? (schema.required as string[]) : [];
