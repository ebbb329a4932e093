import fc from 'fast-check';
import { z } from 'zod';
import type { ToolDefinition } from '../../../mcp-gateway/registry.js';

/**
 * Arguments for any tool, generated from its input schema (as JSON Schema, the same one
 * clients see): mostly well-formed so handlers run, sprinkled with crafted values (known
 * request ids, every stage, evidence claiming an approval) and some plain noise.
 */

type Schema = Record<string, unknown>;

export interface ArgumentPools {
  /** Values for request-id-like fields (known and unknown ids). */
  readonly requestIds: readonly string[];
  /** Strings that try to talk a handler into more than a proposal. */
  readonly craftedStrings: readonly string[];
}

const asSchema = (value: unknown): Schema =>
  typeof value === 'object' && value !== null ? (value as Schema) : {};

const stringArb = (schema: Schema, pools: ArgumentPools): fc.Arbitrary<unknown> => {
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  if (pattern?.includes('req-')) return fc.constantFrom(...pools.requestIds);
  if (pattern) {
    try {
      return fc.stringMatching(new RegExp(pattern)).map((s) => s.slice(0, 200));
    } catch {
      return fc.string();
    }
  }
  if (schema.format === 'uri') {
    return fc.constantFrom('https://example.com/spec', 'https://github.com/o/r/pull/1');
  }
  if (schema.format === 'date-time') {
    return fc
      .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) })
      .map((ms) => new Date(ms).toISOString());
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pools.craftedStrings) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: Math.max(min, 40) }) },
  );
};

export const arbitraryFromSchema = (
  raw: unknown,
  pools: ArgumentPools,
  depth = 0,
): fc.Arbitrary<unknown> => {
  const schema = asSchema(raw);
  if (depth > 5) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(union) && union.length > 0) {
    return fc.oneof(...union.map((member) => arbitraryFromSchema(member, pools, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? (schema.type[0] as unknown) : schema.type;
  switch (type) {
    case 'string':
      return stringArb(schema, pools);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -5;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 50;
      return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, min + 1000)) });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const maxItems = typeof schema.maxItems === 'number' ? Math.min(schema.maxItems, 4) : 4;
      const minItems = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 4) : 0;
      return fc.array(arbitraryFromSchema(schema.items, pools, depth + 1), {
        minLength: minItems,
        maxLength: Math.max(minItems, maxItems),
      });
    }
    case 'object': {
      const properties = asSchema(schema.properties);
      const keys = Object.keys(properties);
      if (keys.length === 0) {
        const names = asSchema(schema.propertyNames);
        const keyArb =
          typeof names.pattern === 'string' && names.pattern.includes('ac-')
            ? fc.constantFrom('ac-1', 'ac-2', 'ac-3')
            : fc.constantFrom('a', 'b', 'label');
        return fc.dictionary(
          keyArb,
          arbitraryFromSchema(schema.additionalProperties ?? { type: 'string' }, pools, depth + 1),
          { maxKeys: 3 },
        );
      }
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const model = Object.fromEntries(
        keys.map((key) => [key, arbitraryFromSchema(properties[key], pools, depth + 1)]),
      );
      return fc.record(model, { requiredKeys: required.filter((key) => keys.includes(key)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
};

/** Arguments for `tool`: schema-shaped most of the time, arbitrary JSON some of the time. */
export const toolArguments = (
  tool: ToolDefinition,
  pools: ArgumentPools,
): fc.Arbitrary<unknown> => {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
  return fc.oneof(
    { weight: 9, arbitrary: arbitraryFromSchema(schema, pools) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue()) },
  );
};
