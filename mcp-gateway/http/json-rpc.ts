import { INVALID_PARAMS, PARSE_ERROR } from '@modelcontextprotocol/server';
import { exceedsDepth, MAX_MESSAGE_DEPTH } from '../server/depth.js';

/** The few fields of a JSON-RPC request /mcp looks at before a transport does. */
export interface JsonRpcCall {
  readonly method?: unknown;
  readonly params?: Record<string, unknown>;
}

export const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });

export const jsonRpcError = (status: number, code: number, message: string, id: unknown = null) =>
  json(status, { jsonrpc: '2.0', id, error: { code, message } });

type ParsedMessage =
  | { readonly kind: 'parsed'; readonly value: unknown }
  | { readonly kind: 'refused'; readonly response: Response };

/**
 * The JSON-RPC message(s) of a POST body. Not JSON is a parse error (-32700); nesting deeper
 * than `MAX_MESSAGE_DEPTH` is refused before any schema walks it recursively (-32602, with the
 * request's id when it has one).
 */
export const parseMessage = (body: Buffer | undefined): ParsedMessage => {
  if (body === undefined) return { kind: 'parsed', value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return {
      kind: 'refused',
      response: jsonRpcError(
        400,
        PARSE_ERROR,
        'Parse error: the body is not JSON; POST one JSON-RPC message (or a batch array) as application/json',
      ),
    };
  }
  if (exceedsDepth(value, MAX_MESSAGE_DEPTH)) {
    const id = (value as { id?: unknown } | null)?.id;
    return {
      kind: 'refused',
      response: jsonRpcError(
        200,
        INVALID_PARAMS,
        `Invalid params: the message nests deeper than ${String(MAX_MESSAGE_DEPTH)} levels`,
        typeof id === 'string' || typeof id === 'number' ? id : null,
      ),
    };
  }
  return { kind: 'parsed', value };
};
