import { listenError } from './port.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLabelledCounter,
  gaugeFamily,
  renderPrometheus,
  type MetricFamily,
  type ProjectionStatus,
} from '../../projections/index.js';
import type { Config } from '../../services/runtime/config.js';
import type { Logger } from '../../services/runtime/logger.js';
import { problem, sendJson, sendProblem } from '../rest/problems.js';
import {
  corsPreflightHeaders,
  corsResponseHeaders,
  decideEdge,
  edgePolicyFromConfig,
  type EdgePolicy,
  type HostRule,
} from './edge.js';
import { bodyTooLarge, declaredLength, HttpRefusal, readBody } from './node-bridge.js';
import { logRefusal, noteRefusal } from './refusals.js';

/** A readiness probe: one named dependency; `probe` throws (or resolves false) when unusable. */
export interface ReadinessCheck {
  readonly name: string;
  readonly probe: () => Promise<boolean>;
  /**
   * What /readyz shows beside the verdict: things an operator must see that do not make the
   * process unready (a background worker's failures, work waiting on someone else).
   */
  readonly detail?: () => Readonly<Record<string, unknown>>;
}

/** What a route is told beside the request: the server's own URLs and its body reader. */
export interface RouteContext {
  /**
   * The server's public URLs, from configuration (MCP_PUBLIC_URL) or else the bound address;
   * never from a request header. `base` ends with `/`; other paths resolve against it.
   */
  readonly urls: PublicUrls;
  /** The request's path (no query), as routed. */
  readonly path: string;
  /** The request URL on the server's own origin (`Host` plays no part). */
  readonly url: URL;
  /** The body, at most the route's `maxBodyBytes`; over that it throws a 413 refusal. */
  readBody(): Promise<Buffer>;
}

export interface PublicUrls {
  readonly base: URL;
  /** The MCP endpoint as clients should name it. */
  readonly mcp: URL;
  /** The server's own origin (`http://127.0.0.1:PORT`), for requests handed to the SDK. */
  readonly local: string;
}

/**
 * One endpoint of the process. Every route is served through the same edge: Host and Origin
 * (DNS-rebinding protection), CORS, method check, body limit, timeouts and the response
 * metrics; a route cannot be mounted around it.
 */
export interface HttpRoute {
  readonly path: string;
  /** Also answers every path below `path` (which then ends with `/`). */
  readonly prefix?: boolean;
  /** Methods answered; others get 405 with `Allow`. GET implies HEAD. */
  readonly methods: readonly string[];
  /** Largest request body read (bytes); 0 (the default): the route takes no body. */
  readonly maxBodyBytes?: number;
  /** Default `allowlist`; `allowlist-or-ip` for probes and scrapers that use an address. */
  readonly hosts?: HostRule;
  /**
   * The route writes the activity line of its own refusals (the GitHub webhook receiver: a
   * `webhook` line with the delivery), so the server writes no `refused` line for them.
   */
  readonly logsOwnRefusals?: boolean;
  handle(req: IncomingMessage, res: ServerResponse, context: RouteContext): Promise<void>;
}

export interface HttpTimeouts {
  /** Time a client has to send its request headers. */
  readonly headersMs: number;
  /** Time a client has to send its whole request (headers and body); streams answer longer. */
  readonly requestMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000 };

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly edge: EdgePolicy;
  /** MCP_PUBLIC_URL: the MCP endpoint's public URL; unset, URLs name the bound address. */
  readonly publicUrl?: string | undefined;
  readonly timeouts?: HttpTimeouts;
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

/** The edge, the public URL and the timeouts of `startHttpServer`, as configured. */
export const httpSettingsFromConfig = (
  config: Config,
): Pick<HttpServerOptions, 'host' | 'port' | 'edge' | 'publicUrl' | 'timeouts'> => ({
  host: config.httpHost,
  port: config.httpPort,
  edge: edgePolicyFromConfig(config),
  publicUrl: config.mcpPublicUrl,
  timeouts: { headersMs: config.httpHeadersTimeoutMs, requestMs: config.httpRequestTimeoutMs },
});

export interface RunningHttpServer {
  /** The bound address (`http://127.0.0.1:PORT`). */
  readonly url: string;
  readonly urls: PublicUrls;
  close(): Promise<void>;
}

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
  return [
    {
      name: 'process_cpu_seconds_total',
      help: 'Total user and system CPU time spent in seconds.',
      type: 'counter',
      samples: [{ value: (cpu.user + cpu.system) / 1e6 }],
    },
    gaugeFamily(
      'process_start_time_seconds',
      'Start time of the process since unix epoch in seconds.',
      processStart,
    ),
    gaugeFamily('process_resident_memory_bytes', 'Resident memory size in bytes.', memory.rss),
    gaugeFamily(
      'nodejs_heap_size_total_bytes',
      'Process heap size from Node.js in bytes.',
      memory.heapTotal,
    ),
    gaugeFamily(
      'nodejs_heap_size_used_bytes',
      'Process heap size used from Node.js in bytes.',
      memory.heapUsed,
    ),
    gaugeFamily(
      'nodejs_external_memory_bytes',
      'Node.js external memory size in bytes.',
      memory.external,
    ),
  ];
};

/** Responses by route (its registered path, never the raw one) and status, for /metrics. */
const createResponseCounter = () =>
  createLabelledCounter(
    'cogitave_http_responses_total',
    'HTTP responses by route (its registered path; "none" when no route matched) and status.',
  );

const OPS_ROUTE: Pick<HttpRoute, 'methods' | 'hosts'> = {
  methods: ['GET'],
  // Probes and scrapers address a process by its IP; a rebinding attack never can.
  hosts: 'allowlist-or-ip',
};

/** /healthz, /readyz and /metrics, mounted through the same edge as every other route. */
const opsRoutes = (
  options: HttpServerOptions,
  responses: ReturnType<typeof createResponseCounter>,
): HttpRoute[] => [
  {
    ...OPS_ROUTE,
    path: '/healthz',
    handle: (_req, res) => {
      sendJson(res, 200, { status: 'ok' });
      return Promise.resolve();
    },
  },
  {
    ...OPS_ROUTE,
    path: '/metrics',
    handle: (_req, res) => {
      const text =
        renderPrometheus([...processFamilies(), responses.family()]) + (options.metrics?.() ?? '');
      res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(text);
      return Promise.resolve();
    },
  },
  {
    ...OPS_ROUTE,
    path: '/readyz',
    handle: async (_req, res) => {
      const checks = await Promise.all(
        options.readiness.map(({ name, probe, detail }) =>
          probe().then(
            (ok) => ({ name, ok, ...(detail ? { detail: detail() } : {}) }),
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
    },
  },
];

/** Exact paths first, then the longest prefix; two routes on one path are a wiring error. */
const createRouteTable = (routes: readonly HttpRoute[]) => {
  const exact = new Map<string, HttpRoute>();
  const prefixes: HttpRoute[] = [];
  for (const route of routes) {
    if (route.prefix === true) {
      if (!route.path.endsWith('/')) throw new Error(`prefix route ${route.path} must end with /`);
      if (prefixes.some((other) => other.path === route.path))
        throw new Error(`two routes on ${route.path}`);
      prefixes.push(route);
    } else {
      if (exact.has(route.path)) throw new Error(`two routes on ${route.path}`);
      exact.set(route.path, route);
    }
  }
  prefixes.sort((a, b) => b.path.length - a.path.length);
  return (path: string): HttpRoute | undefined =>
    exact.get(path) ?? prefixes.find((route) => path.startsWith(route.path));
};

const answersMethod = (route: HttpRoute, method: string): boolean =>
  route.methods.includes(method) || (method === 'HEAD' && route.methods.includes('GET'));

const allowHeader = (route: HttpRoute): string =>
  [...route.methods, ...(route.methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');

const publicUrlsFor = (bound: string, publicUrl: string | undefined): PublicUrls => {
  if (publicUrl === undefined) {
    const base = new URL(`${bound}/`);
    return { base, mcp: new URL('mcp', base), local: bound };
  }
  const mcp = new URL(publicUrl);
  return { base: new URL('.', mcp), mcp, local: bound };
};

/** `http://[::1]:3100` for the address a server is bound to; a wildcard bind names loopback. */
const boundUrl = (address: AddressInfo): string => {
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  return `http://${host}:${String(address.port)}`;
};

/**
 * The process's HTTP server: every route — the ops endpoints, /mcp, REST, llms.txt, webhooks,
 * and any added later — is dispatched here, after the one edge policy.
 */
export const startHttpServer = async (options: HttpServerOptions): Promise<RunningHttpServer> => {
  const responses = createResponseCounter();
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const findRoute = createRouteTable([...opsRoutes(options, responses), ...(options.routes ?? [])]);
  // Known once the server listens (port 0 picks one); nothing is served before that.
  let urls: PublicUrls = publicUrlsFor('http://localhost', options.publicUrl);

  const refuse = (res: ServerResponse, refusal: HttpRefusal, instance: string): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    sendProblem(res, problem(refusal.status, refusal.message, { instance }), refusal.headers);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.url ?? '';
    // A request target is an absolute path; anything else (`*`, a full URL, `//host`) is not
    // resolved against any host.
    if (!target.startsWith('/') || target.startsWith('//')) {
      refuse(res, new HttpRefusal(400, 'The request target must be an absolute path.'), '');
      return;
    }
    const url = new URL(`${urls.local}${target}`);
    const path = url.pathname;
    const route = findRoute(path);
    res.once('finish', () => {
      responses.inc({ route: route?.path ?? 'none', status: String(res.statusCode) });
      // The registered path only: a path the client made up never reaches the log.
      logRefusal(options.logger, req, res, route?.path ?? 'none');
    });
    const edge = decideEdge(
      { host: req.headers.host, origin: req.headers.origin },
      route?.hosts ?? 'allowlist',
      options.edge,
    );
    if (edge.kind === 'refuse') {
      noteRefusal(res, { reason: edge.reason });
      refuse(res, new HttpRefusal(edge.status, edge.detail), path);
      return;
    }
    if (!route) {
      refuse(res, new HttpRefusal(404, `No route for ${path}; try /healthz or /readyz.`), path);
      return;
    }
    const method = req.method ?? 'GET';
    if (method === 'OPTIONS') {
      const requested = req.headers['access-control-request-method'];
      const cors =
        edge.corsOrigin !== undefined && typeof requested === 'string'
          ? corsPreflightHeaders(
              edge.corsOrigin,
              [...route.methods],
              req.headers['access-control-request-headers'],
            )
          : {};
      res.writeHead(204, { allow: allowHeader(route), ...cors });
      res.end();
      return;
    }
    if (edge.corsOrigin !== undefined) {
      for (const [name, value] of Object.entries(corsResponseHeaders(edge.corsOrigin)))
        res.setHeader(name, value);
    }
    if (!answersMethod(route, method)) {
      refuse(
        res,
        new HttpRefusal(405, `${route.path} answers ${route.methods.join(', ')}.`, {
          allow: allowHeader(route),
        }),
        path,
      );
      return;
    }
    const limit = route.maxBodyBytes ?? 0;
    const declared = declaredLength(req);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    if ((declared ?? 0) > limit || (limit === 0 && chunked)) {
      refuse(res, bodyTooLarge(limit), path);
      return;
    }
    const context: RouteContext = {
      urls,
      path,
      url,
      readBody: () => readBody(req, limit),
    };
    // Refusals before this point (edge, method, size) are the server's to log on any route.
    if (route.logsOwnRefusals === true) noteRefusal(res, { logged: true });
    try {
      await route.handle(req, res, context);
    } catch (error) {
      if (!(error instanceof HttpRefusal)) throw error;
      refuse(res, error, path);
    }
  };

  const server: Server = createServer(
    {
      // Node requires the headers' time to fit in the whole request's.
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      requestTimeout: timeouts.requestMs,
      // Node checks both timeouts on this interval (30 s by default, longer than ours).
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)),
      ),
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        options.logger.error({ err: error }, 'http handler failed');
        if (!res.headersSent) sendProblem(res, problem(500, 'See the server log.'));
        else res.end();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => {
      reject(listenError(error, options.host, options.port));
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const url = boundUrl(server.address() as AddressInfo);
  urls = publicUrlsFor(url, options.publicUrl);
  return {
    url,
    urls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
};
