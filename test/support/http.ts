import { request } from 'node:http';

/**
 * A raw HTTP/1.1 request, for what `fetch` cannot send: a forged or malformed `Host`, a body
 * shorter than its declared length, a client that stops sending. Resolves with the answer (or
 * `status: 0` when the server closed the connection without one).
 */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string>;
  /** Written as is; the request is ended after it unless `keepOpen`. */
  readonly body?: string;
  /** Leave the request unfinished (a slow or stalled client). */
  readonly keepOpen?: boolean;
}

export const rawRequest = (baseUrl: string, init: RawRequest = {}): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const target = new URL(baseUrl);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: init.path ?? target.pathname,
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        // A fresh connection per request: what one test does to a socket stays with it.
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE')
        resolve({ status: 0, headers: {}, body: '' });
      else reject(error);
    });
    if (init.body !== undefined) req.write(init.body);
    if (init.keepOpen !== true) req.end();
  });

/** The JSON-RPC initialize of a 2025-11-25 client. */
export const INITIALIZE_2025 = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
} as const;

/** The headers a Streamable HTTP client sends with a POST. */
export const MCP_POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

export interface JsonRpcAnswer {
  readonly status: number;
  readonly id?: unknown;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** The JSON-RPC answer of a POST, whether the server replied with JSON or an SSE stream. */
export const readJsonRpc = async (response: Response): Promise<JsonRpcAnswer> => {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const messages = type.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
    : [JSON.parse(text) as Record<string, unknown>];
  const answer = messages.find((message) => 'result' in message || 'error' in message) ?? {};
  return { status: response.status, ...answer };
};

/** A 2025-11-25 session over raw HTTP: initialize once, then one JSON-RPC request per call. */
export const openRawSession = async (mcpUrl: string, headers: Record<string, string> = {}) => {
  const init = await fetch(mcpUrl, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, ...headers },
    body: JSON.stringify(INITIALIZE_2025),
  });
  await init.text();
  const sessionHeaders = {
    ...MCP_POST_HEADERS,
    ...headers,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-11-25',
  };
  await fetch(mcpUrl, {
    method: 'POST',
    headers: sessionHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  let id = 1;
  return {
    sessionId: sessionHeaders['mcp-session-id'],
    call: async (method: string, params?: unknown): Promise<JsonRpcAnswer> => {
      id += 1;
      return readJsonRpc(
        await fetch(mcpUrl, {
          method: 'POST',
          headers: sessionHeaders,
          body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }),
        }),
      );
    },
  };
};

/** The per-request envelope of a 2026-07-28 request. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
} as const;

const headerValue = (value: string): string =>
  /^[\x20-\x7e]*$/.test(value)
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** One stateless 2026-07-28 request over raw HTTP (`_meta` envelope and standard headers). */
export const modernCall = async (
  mcpUrl: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<JsonRpcAnswer> => {
  const name = typeof params.name === 'string' ? params.name : params.uri;
  return readJsonRpc(
    await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        ...MCP_POST_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        // A value a header cannot carry verbatim goes Base64-wrapped (SEP-2243).
        ...(typeof name === 'string' ? { 'mcp-name': headerValue(name) } : {}),
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: { ...params, _meta: { ...MODERN_META, ...(params._meta as object | undefined) } },
      }),
    }),
  );
};
