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
