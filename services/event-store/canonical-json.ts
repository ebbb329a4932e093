import canonicalize from 'canonicalize';

/**
 * RFC 8785 canonical JSON: the text every event's hash covers, and resource and digest hashes.
 * The `canonicalize` package is the reference; this module is a faster path that writes the
 * same text for plain JSON data without that library's per-string and per-value checks in
 * script: appends encode every event once, a replay hashes ~100k documents per million events.
 *
 * The fast path handles plain JSON data (null, booleans, finite numbers, strings without
 * lone surrogate code units, arrays without holes or undefined, objects of the default prototype
 * without `toJSON`); anything else is handed whole to the library, so edge cases (lone
 * surrogates, NaN, `toJSON`, undefined in arrays) keep its exact behaviour. A property test
 * holds the two to the same text (test/unit/event-store/canonical-json.unit.test.ts).
 */
class NotPlain extends Error {}

const NOT_PLAIN = new NotPlain();
const SURROGATE = /[\uD800-\uDFFF]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What JSON escapes in a string, and surrogates (checked separately). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_CARE = /[\u0000-\u001f"\\\uD800-\uDFFF]/;

const text = (value: string): string => {
  // Most strings need no escape: quoted as they are, without a call into JSON.stringify.
  if (!NEEDS_CARE.test(value)) return `"${value}"`;
  // Paired surrogates (emoji) are written as they are, as the library writes them; lone ones
  // are its error, so it decides those.
  if (SURROGATE.test(value) && LONE_SURROGATE.test(value)) throw NOT_PLAIN;
  return JSON.stringify(value);
};

/**
 * The keys of `record` in UTF-16 code unit order. Objects built by one literal often list
 * them in order already, and then no sort runs: sorting copies the keys into a work array,
 * which for a replay hashing ~100k documents was a tenth of what it allocated.
 */
const sortedKeys = (record: object): string[] => {
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i += 1) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
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
  for (const key of sortedKeys(record)) {
    const item = record[key];
    if (item === undefined) continue;
    out += `${first ? '' : ','}${text(key)}:${serialize(item)}`;
    first = false;
  }
  return `${out}}`;
};

/**
 * The canonical text of `value` when it is plain JSON data, else undefined (the caller decides
 * what a value outside plain JSON means: the append path checks it and names what is wrong).
 */
export const plainCanonicalJson = (value: unknown): string | undefined => {
  try {
    return serialize(value);
  } catch (error) {
    // A cycle overflows the stack here.
    if (error instanceof NotPlain || error instanceof RangeError) return undefined;
    throw error;
  }
};

/** The canonical text of any value the library accepts; its errors for the rest. */
export const canonicalJson = (value: unknown): string => {
  const plain = plainCanonicalJson(value);
  if (plain !== undefined) return plain;
  const library = canonicalize(value);
  if (library === undefined) throw new TypeError('value has no JSON representation');
  return library;
};
