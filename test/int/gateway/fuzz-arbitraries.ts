import fc from 'fast-check';

/**
 * Random `tools/call` arguments for any tool, from the JSON Schema 2020-12 input schema the
 * server lists: well-formed sets (so handlers run, with known ids mixed in so they reach the
 * database), the same sets with one field broken (wrong type, null, out-of-range number, huge
 * or unusual unicode string, a required field missing, an unknown field added), and arbitrary
 * JSON objects.
 */

type Schema = Record<string, unknown>;

/** Known values per argument name (`request_id`, `uid`, `network_name`, ...). */
export type FieldPools = Readonly<Record<string, readonly string[]>>;

const asSchema = (value: unknown): Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : {};

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** Strings models and people actually send that trip naive code: unicode, controls, injection. */
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\n\t\r',
  'é'.normalize('NFD'),
  '👩‍💻🏳️‍🌈',
  '\uD800',
  'ﷺ'.repeat(50),
  "'; DROP TABLE event_store.events; --",
  '$1',
  '%',
  '_',
  '\\',
  '{"a":1}',
  '../../etc/passwd',
  'cogitave://doc/',
  'req-0000-0000',
  'req-9999-99999999999999999999',
  'MATCH (n) DETACH DELETE n',
  '<script>alert(1)</script>',
  'NaN',
  '-0',
  '1e309',
  'x'.repeat(1001),
];

const hugeString = fc.oneof(
  fc.integer({ min: 1_000, max: 70_000 }).map((length) => 'a'.repeat(length)),
  fc.integer({ min: 100, max: 5_000 }).map((length) => '😀'.repeat(length)),
);

const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: hugeString },
);

const stringFor = (field: string, schema: Schema, pools: FieldPools): fc.Arbitrary<unknown> => {
  const known = pools[field];
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = Math.min(num(schema.maxLength) ?? 80, Math.max(minLength, 80));
  let shaped: fc.Arbitrary<string>;
  if (schema.format === 'uri') {
    shaped = fc.oneof(fc.webUrl(), fc.constantFrom('https://example.com/spec', 'urn:isbn:1'));
  } else if (schema.format === 'date-time') {
    shaped = fc
      .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
      .map((ms) => new Date(ms).toISOString());
  } else if (pattern !== undefined) {
    shaped = fc.stringMatching(new RegExp(pattern)).filter((value) => value.length <= 300);
  } else {
    shaped = fc.oneof(
      fc.lorem({ maxCount: Math.max(1, Math.ceil(maxLength / 8)), mode: 'words' }),
      fc.string({ minLength, maxLength }),
    );
  }
  const sized = shaped.map((value) =>
    value.length < minLength ? value.padEnd(minLength, '.') : value,
  );
  return known && known.length > 0
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: sized })
    : sized;
};

/** A value that fits `raw` (mostly; patterns and pools may still name unknown things). */
export const validShaped = (
  raw: unknown,
  pools: FieldPools,
  field = '',
  depth = 0,
): fc.Arbitrary<unknown> => {
  const schema = asSchema(raw);
  if (depth > 4) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union) && union.length > 0)
    return fc.oneof(...union.map((member) => validShaped(member, pools, field, depth + 1)));
  const type = Array.isArray(schema.type)
    ? fc
        .constantFrom(...(schema.type as string[]))
        .chain((t) => validShaped({ ...schema, type: t }, pools, field, depth + 1))
    : undefined;
  if (type) return type;
  switch (schema.type) {
    case 'string':
      return stringFor(field, schema, pools);
    case 'integer':
    case 'number': {
      const min = num(schema.minimum) ?? -1000;
      const max = num(schema.maximum) ?? 1000;
      return schema.type === 'integer'
        ? fc.integer({ min, max })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = Math.min(num(schema.minItems) ?? 0, 5);
      const maxLength = Math.max(minLength, Math.min(num(schema.maxItems) ?? 5, 5));
      return fc.array(validShaped(schema.items, pools, field, depth + 1), {
        minLength,
        maxLength,
      });
    }
    case 'object': {
      const properties = asSchema(schema.properties);
      const keys = Object.keys(properties);
      if (keys.length === 0) {
        const names = asSchema(schema.propertyNames);
        const key =
          typeof names.pattern === 'string'
            ? fc.stringMatching(new RegExp(names.pattern)).filter((value) => value.length <= 40)
            : fc.string({ minLength: num(names.minLength) ?? 0, maxLength: 20 });
        const value =
          schema.additionalProperties === undefined || schema.additionalProperties === true
            ? fc.jsonValue({ maxDepth: 2 })
            : validShaped(schema.additionalProperties, pools, field, depth + 1);
        return fc.dictionary(key, value, { maxKeys: 4 });
      }
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return fc.record(
        Object.fromEntries(
          keys.map((key) => [key, validShaped(properties[key], pools, key, depth + 1)]),
        ),
        { requiredKeys: required.filter((key) => keys.includes(key)) },
      );
    }
    default:
      // No type: anything JSON (e.g. a node's `data`).
      return fc.jsonValue({ maxDepth: 3 });
  }
};

/** A value of the wrong kind for `schema`, or an edge it refuses. */
const brokenValue = (raw: unknown): fc.Arbitrary<unknown> => {
  const schema = asSchema(raw);
  const outOfRange: fc.Arbitrary<unknown>[] = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = num(schema.minimum);
    const max = num(schema.maximum);
    if (min !== undefined) outOfRange.push(fc.constantFrom(min - 1, min - 0.5, -1e308));
    if (max !== undefined) outOfRange.push(fc.constantFrom(max + 1, max + 0.5, 1e308));
    outOfRange.push(fc.constantFrom(0.5, -0, Number.MAX_SAFE_INTEGER + 2, 2 ** 53, -(2 ** 31)));
  }
  if (schema.type === 'array') {
    const max = num(schema.maxItems);
    if (max !== undefined) outOfRange.push(fc.constant(Array.from({ length: max + 1 }, () => 'x')));
  }
  return fc.oneof(
    { weight: 3, arbitrary: oddString },
    { weight: 2, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, [], {}, [null], '') },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    ...outOfRange.map((arbitrary) => ({ weight: 2, arbitrary })),
  );
};

type Mutation =
  | { readonly kind: 'replace'; readonly key: string; readonly value: unknown }
  | { readonly kind: 'drop'; readonly key: string }
  | { readonly kind: 'extra'; readonly key: string; readonly value: unknown };

const mutation = (schema: Schema): fc.Arbitrary<Mutation> => {
  const properties = asSchema(schema.properties);
  const keys = Object.keys(properties);
  const extra = fc.record({
    kind: fc.constant('extra' as const),
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra', 'LIMIT'), fc.string()),
    value: fc.jsonValue({ maxDepth: 2 }),
  });
  if (keys.length === 0) return extra;
  const key = fc.constantFrom(...keys);
  return fc.oneof(
    {
      weight: 5,
      arbitrary: key.chain((name) =>
        brokenValue(properties[name]).map((value): Mutation => ({
          kind: 'replace',
          key: name,
          value,
        })),
      ),
    },
    { weight: 2, arbitrary: key.map((name): Mutation => ({ kind: 'drop', key: name })) },
    { weight: 2, arbitrary: extra },
  );
};

const applyMutations = (base: unknown, mutations: readonly Mutation[]): unknown => {
  const args: Record<string, unknown> =
    typeof base === 'object' && base !== null && !Array.isArray(base)
      ? { ...(base as Record<string, unknown>) }
      : {};
  for (const change of mutations) {
    if (change.kind === 'drop') Reflect.deleteProperty(args, change.key);
    // defineProperty, so a `__proto__` key is an own data property that JSON.stringify sends.
    else
      Object.defineProperty(args, change.key, {
        value: change.value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
  }
  return args;
};

/**
 * Arguments for one tool: 40 % well-formed, 45 % well-formed with 1–3 fields broken, 15 %
 * arbitrary JSON objects (`arguments` is an object in the protocol; other JSON is the SDK's
 * to refuse as invalid params).
 */
export const fuzzArguments = (inputSchema: unknown, pools: FieldPools): fc.Arbitrary<unknown> => {
  const schema = asSchema(inputSchema);
  const shaped = validShaped(schema, pools);
  return fc.oneof(
    { weight: 8, arbitrary: shaped },
    {
      weight: 9,
      arbitrary: fc
        .tuple(shaped, fc.array(mutation(schema), { minLength: 1, maxLength: 3 }))
        .map(([base, mutations]) => applyMutations(base, mutations)),
    },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.dictionary(fc.string({ maxLength: 16 }), fc.jsonValue({ maxDepth: 3 }), {
          maxKeys: 6,
        }),
        fc
          .object({ maxDepth: 2, withNullPrototype: false })
          .map((value) => JSON.parse(JSON.stringify(value)) as unknown),
      ),
    },
  );
};
