import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../services/runtime/logger.js';

/** A readiness probe: one named dependency; `probe` throws (or resolves false) when unusable. */
export interface ReadinessCheck {
  readonly name: string;
  readonly probe: () => Promise<boolean>;
}

/** An extra endpoint (e.g. the GitHub webhook receiver): one exact path, any method. */
export interface HttpRoute {
  readonly path: string;
  /** Answers the request itself, method checks included. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly readiness: readonly ReadinessCheck[];
  /** Mounted beside /healthz and /readyz, which they cannot replace. */
  readonly routes?: readonly HttpRoute[];
}

export interface RunningHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  type = 'application/json',
): void => {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
};

/** Errors leave as RFC 9457 problem documents. */
const sendProblem = (res: ServerResponse, status: number, title: string, detail: string): void => {
  sendJson(res, status, { type: 'about:blank', title, status, detail }, 'application/problem+json');
};

/**
 * The process's HTTP server. For now it serves the ops endpoints; the MCP Streamable HTTP
 * transport, webhooks and the REST surface mount here as they land.
 */
export const startHttpServer = async (options: HttpServerOptions): Promise<RunningHttpServer> => {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/healthz' || path === '/readyz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        sendProblem(res, 405, 'Method Not Allowed', `${path} answers GET and HEAD only`);
        return;
      }
      if (path === '/healthz') {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      const checks = await Promise.all(
        options.readiness.map(({ name, probe }) =>
          probe().then(
            (ok) => ({ name, ok }),
            (error: unknown) => ({ name, ok: false, detail: (error as Error).message }),
          ),
        ),
      );
      const ready = checks.every((check) => check.ok);
      sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks });
      return;
    }
    const route = options.routes?.find((candidate) => candidate.path === path);
    if (route) {
      await route.handle(req, res);
      return;
    }
    sendProblem(res, 404, 'Not Found', `No route for ${path}; try /healthz or /readyz`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error({ err: error }, 'http handler failed');
      if (!res.headersSent) sendProblem(res, 500, 'Internal Server Error', 'see the server log');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
};
