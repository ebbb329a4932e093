import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  renderPrometheus,
  type MetricFamily,
  type ProjectionStatus,
} from '../../projections/index.js';
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
  /**
   * The read models, listed by /readyz; one `stopped` on a failed event makes the process not
   * ready (a standby or a catching-up projection does not).
   */
  readonly projections?: () => readonly ProjectionStatus[];
  /** Metrics in the Prometheus text format, served by /metrics after the process basics. */
  readonly metrics?: () => string;
  /** Mounted beside /healthz, /readyz and /metrics, which they cannot replace. */
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

const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** What /readyz shows of a projection: where it is, how far behind, and why it stopped. */
const projectionReport = (status: ProjectionStatus) => ({
  name: status.name,
  state: status.state,
  leader: status.leader,
  position: status.position,
  headPosition: status.headPosition,
  lagEvents: status.lagEvents,
  lagSeconds: status.lagSeconds,
  eventsApplied: status.eventsApplied,
  lastBatchAt: status.lastBatchAt,
  retrying: status.retrying,
  error: status.error,
});

const processStart = Date.now() / 1000 - process.uptime();

/** The usual process_* and nodejs_* basics, read from Node itself (no client library). */
const processFamilies = (): MetricFamily[] => {
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  const gauge = (name: string, help: string, value: number): MetricFamily => ({
    name,
    help,
    type: 'gauge',
    samples: [{ value }],
  });
  return [
    {
      name: 'process_cpu_seconds_total',
      help: 'Total user and system CPU time spent in seconds.',
      type: 'counter',
      samples: [{ value: (cpu.user + cpu.system) / 1e6 }],
    },
    gauge(
      'process_start_time_seconds',
      'Start time of the process since unix epoch in seconds.',
      processStart,
    ),
    gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', memory.rss),
    gauge(
      'nodejs_heap_size_total_bytes',
      'Process heap size from Node.js in bytes.',
      memory.heapTotal,
    ),
    gauge(
      'nodejs_heap_size_used_bytes',
      'Process heap size used from Node.js in bytes.',
      memory.heapUsed,
    ),
    gauge(
      'nodejs_external_memory_bytes',
      'Node.js external memory size in bytes.',
      memory.external,
    ),
  ];
};

/**
 * The process's HTTP server. For now it serves the ops endpoints; the MCP Streamable HTTP
 * transport, webhooks and the REST surface mount here as they land.
 */
export const startHttpServer = async (options: HttpServerOptions): Promise<RunningHttpServer> => {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (OPS_PATHS.has(path)) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        sendProblem(res, 405, 'Method Not Allowed', `${path} answers GET and HEAD only`);
        return;
      }
      if (path === '/healthz') {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
      if (path === '/metrics') {
        const text = renderPrometheus(processFamilies()) + (options.metrics?.() ?? '');
        res.writeHead(200, {
          'content-type': PROMETHEUS_CONTENT_TYPE,
          'cache-control': 'no-store',
        });
        res.end(text);
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
      const projections = options.projections?.().map(projectionReport);
      const ready =
        checks.every((check) => check.ok) &&
        (projections ?? []).every((projection) => projection.state !== 'stopped');
      sendJson(res, ready ? 200 : 503, {
        status: ready ? 'ready' : 'not ready',
        checks,
        ...(projections ? { projections } : {}),
      });
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
