import { canonicalJson } from '../services/event-store/hash-chain.js';

/**
 * RFC 8785 canonical JSON of a resource document, the same text as `canonicalJson` (the
 * `canonicalize` package) but without its per-string and per-value checks in script: a
 * replay hashes a document per touched request per batch, ~100k of them per million events.
 *
 * The fast path handles plain JSON data (null, booleans, finite numbers, strings without
 * surrogate code units, arrays without holes or undefined, objects of the default prototype
 * without `toJSON`); anything else is handed whole to `canonicalJson`, so edge cases (lone
 * surrogates, NaN, `toJSON`, undefined in arrays) keep that library's exact behaviour.
 */
class NotPlain extends Error {}

const NOT_PLAIN = new NotPlain();
const SURROGATE = /[\uD800-\uDFFF]/;

const text = (value: string): string => {
  // Paired surrogates (emoji) are fine, lone ones are an error: the library decides.
  if (SURROGATE.test(value)) throw NOT_PLAIN;
  return JSON.stringify(value);
};

const serialize = (value: unknown): string => {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return text(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) throw NOT_PLAIN;
      const item: unknown = value[i];
      if (item === undefined) throw NOT_PLAIN;
      out += i === 0 ? serialize(item) : `,${serialize(item)}`;
    }
    return `${out}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
  const record = value as Record<string, unknown>;
  if ('toJSON' in record) throw NOT_PLAIN;
  let out = '{';
  let first = true;
  // Default sort: by UTF-16 code units, as RFC 8785 requires.
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${text(key)}:${serialize(item)}`;
    first = false;
  }
  return `${out}}`;
};

export const canonicalDocumentJson = (document: unknown): string => {
  try {
    return serialize(document);
  } catch (error) {
    // A cycle overflows the stack here; the library names it.
    if (error instanceof NotPlain || error instanceof RangeError) return canonicalJson(document);
    throw error;
  }
};
