/**
 * `Mcp-Param-*` headers (2026-07-28 Streamable HTTP, SEP-2243): a tool may mark primitive
 * arguments with `x-mcp-header: Name` in its input schema, and the client then mirrors each
 * value in an `Mcp-Param-Name` header so that proxies can route on it. A server must check that
 * header and body agree, or a proxy could route on one value while the tool acts on another.
 * SDK 2.4 checks this only for its high-level `McpServer`; our low-level server is checked here.
 */

export interface ParamHeaderDeclaration {
  /** The argument's path through `properties` (nested objects allowed). */
  readonly path: readonly string[];
  /** The header's name after `Mcp-Param-`. */
  readonly header: string;
  readonly type: string | undefined;
}

/** The `x-mcp-header` declarations of an input schema, found along `properties` chains only. */
export const paramHeaderDeclarations = (schema: unknown): ParamHeaderDeclaration[] => {
  const found: ParamHeaderDeclaration[] = [];
  const visit = (node: unknown, path: readonly string[]): void => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    const header = record['x-mcp-header'];
    if (path.length > 0 && typeof header === 'string' && header !== '') {
      found.push({
        path,
        header,
        type: typeof record.type === 'string' ? record.type : undefined,
      });
    }
    const properties = record.properties;
    if (typeof properties !== 'object' || properties === null) return;
    for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return found;
};

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Canonical Base64 only: the alphabet, whole quanta, correct padding (SEP-2243's test table). */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** A header value as the client meant it: `=?base64?…?=` decoded as UTF-8, else literal. */
const decodeHeader = (value: string): string | undefined => {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
};

const atPath = (root: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>(
    (node, key) =>
      typeof node === 'object' && node !== null
        ? (node as Record<string, unknown>)[key]
        : undefined,
    root,
  );

/**
 * Why the request's `Mcp-Param-*` headers disagree with its arguments, or undefined. An argument
 * that is absent or null expects no header; a present one expects its header, equal after
 * decoding (numbers compared as numbers).
 */
export const paramHeaderProblem = (
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
  headers: Headers,
): string | undefined => {
  for (const declaration of declarations) {
    const name = `Mcp-Param-${declaration.header}`;
    const value = atPath(args, declaration.path);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      continue;
    const argument = declaration.path.join('.');
    const header = headers.get(name);
    if (header === null)
      return `the arguments carry ${argument} but the ${name} header is missing; send the value in both`;
    const decoded = decodeHeader(header);
    if (decoded === undefined)
      return `the ${name} header's =?base64?…?= value is not canonical Base64 of UTF-8 text`;
    const equal =
      typeof value === 'number' && DECIMAL.test(decoded)
        ? Number(decoded) === value
        : decoded === String(value);
    if (!equal)
      return `the ${name} header says ${JSON.stringify(decoded)} but the arguments carry ${argument}=${JSON.stringify(value)}`;
  }
  return undefined;
};
