import type { TokenAuth } from '../../../mcp-gateway/auth/tokens.js';
import { createGatewayServices } from '../../gateway-services.js';
import {
  createMcpEndpoint,
  endpointLimitsFromConfig,
} from '../../../mcp-gateway/http/mcp-endpoint.js';
import type { ReadinessCheck } from '../../../mcp-gateway/http/server.js';
import { createWebConsole, type AuditSources } from '../../../mcp-gateway/console/index.js';
import { createLlmsTxtRoute } from '../../../mcp-gateway/llms.js';
import { createRestSurface } from '../../../mcp-gateway/rest/routes.js';
import { createGatewayMetrics } from '../../../mcp-gateway/metrics.js';
import { createMcpGateway, type McpGateway } from '../../../mcp-gateway/server/factory.js';
import { DEFAULT_START_UP_WAIT_MS } from '../../../mcp-gateway/server/start-up-gate.js';
import { createStartUp, type StartUpState } from '../../../mcp-gateway/start-up.js';
import { gaugeFamily, renderPrometheus } from '../../../projections/index.js';
import { LOCAL_CALLER } from '../../../mcp-gateway/registry.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import type { App } from '../../app.js';
import { readPackageInfo } from '../../package-info.js';
import { settledWithin } from './ops.js';
import type { ServedPart } from './parts.js';

export interface GatewayPartOptions {
  readonly auth: TokenAuth;
  /** The `describe` value of the auth mode. */
  readonly authLabel: string;
  /** Serve /mcp, REST and llms.txt over HTTP (false: stdio only). */
  readonly http: boolean;
  /**
   * A gateway without a projector in its process: it reads the read models another process
   * keeps and hears of their changes through LISTEN/NOTIFY, so readiness includes that feed.
   */
  readonly standalone: boolean;
  /** This process's catalog start-up (the projector part), which the search index waits for. */
  readonly catalogReady?: Promise<void>;
  /**
   * The process's start-up, which MCP requests wait for; the gateway adds its search index
   * build to it. A gateway without a projector in its process is ready once its index is
   * built: whether another process is still ingesting is not something it can know cheaply.
   */
  readonly startUp?: StartUpState;
}

export interface GatewayPart extends ServedPart {
  readonly gateway: McpGateway;
}

// How long /readyz waits for the change feed's LISTEN connection before answering "not ready".
const CHANGE_FEED_PROBE_MS = 2000;

/** What the console's audit page reads: the audit service, the log newest first, read models. */
export const consoleAuditSources = (app: App): AuditSources => ({
  status: () => app.audit.status(),
  events: ({ streamPrefix, type, before, limit }) =>
    app.eventStore.readAll({
      direction: 'backwards',
      maxCount: limit,
      ...(before === undefined ? {} : { fromPosition: before }),
      filter: {
        ...(streamPrefix === undefined ? {} : { streamPrefixes: [streamPrefix] }),
        ...(type === undefined ? {} : { eventTypes: [type] }),
      },
    }),
  projections: () => app.projections.status(),
});

/**
 * The canonical surface: MCP (HTTP or stdio), the read-only REST surface, llms.txt and, in
 * GitHub mode, the webhook receiver (it only appends commands; no reactor is needed for it).
 */
export const gatewayPart = async (app: App, options: GatewayPartOptions): Promise<GatewayPart> => {
  const { config, logger, github } = app;
  const version = readPackageInfo().version;
  const composed = await createGatewayServices(
    app,
    options.catalogReady ? { catalogReady: options.catalogReady } : {},
  );
  const metrics = createGatewayMetrics();
  const { search } = composed.services;
  const startUp = options.startUp ?? createStartUp();
  const indexing = startUp.step('search', 'indexing');
  // The first build waits for the catalog (seconds on a first start); each wait is bounded.
  const buildSearch = async (): Promise<void> => {
    for (let attempt = 1; !search.status().ready; attempt += 1) {
      try {
        await search.ready();
      } catch (error) {
        if (attempt >= 10) throw error;
      }
    }
  };
  let building: Promise<void> | undefined;
  // Started with the part, so MCP requests stop waiting once it ends (well or not: a build
  // that cannot finish leaves docs_search answering UNAVAILABLE itself).
  const searchBuilt = (): Promise<void> => {
    building ??= buildSearch().finally(() => {
      indexing.done();
    });
    return building;
  };
  const searchCheck: ReadinessCheck = {
    name: 'search',
    probe: async () => {
      await Promise.resolve();
      if (search.status().ready) return true;
      throw new Error('still starting: building the search index');
    },
  };
  const gateway = createMcpGateway({
    tools: ALL_TOOLS,
    services: composed.services,
    logger,
    version,
    metrics,
    startUp,
  });
  const readiness: ReadinessCheck[] = [
    searchCheck,
    ...(options.standalone
      ? [
          {
            name: 'change-feed',
            probe: () => settledWithin(app.changes.ready(), CHANGE_FEED_PROBE_MS),
          },
        ]
      : []),
  ];
  const describe = { auth: options.authLabel, tools: gateway.tools.size };
  if (!options.http) {
    return {
      gateway,
      routes: [],
      readiness,
      describe,
      start: () => {
        searchBuilt().catch(() => undefined);
      },
      started: searchBuilt,
      drain: () => Promise.resolve(),
      close: () => composed.close(),
    };
  }
  const { auth } = options;
  const endpoint = createMcpEndpoint({
    gateway,
    services: composed.services,
    auth,
    logger,
    metrics,
    ...endpointLimitsFromConfig(config),
  });
  // The read-only REST surface and llms.txt answer the same callers as /mcp.
  const rest = createRestSurface(
    composed.services,
    (req) => (auth.enabled ? (auth.authenticate(req.headers.authorization) ?? null) : LOCAL_CALLER),
    {
      tools: ALL_TOOLS,
      version,
      logger,
      startUp: { state: startUp, waitMs: DEFAULT_START_UP_WAIT_MS },
    },
  );
  // The console for people: the same services, tools and tokens as /mcp.
  const webConsole = createWebConsole({
    services: composed.services,
    tools: ALL_TOOLS,
    auth,
    secret: config.consoleSecret?.reveal(),
    approval: github
      ? { kind: 'github', repository: github.settings.repository }
      : { kind: 'local' },
    logger,
    audit: consoleAuditSources(app),
  });
  return {
    gateway,
    routes: [
      ...endpoint.routes,
      ...rest.routes,
      createLlmsTxtRoute({ tools: ALL_TOOLS }),
      ...(github ? [github.webhooks.route] : []),
      ...webConsole.routes,
    ],
    announce: (urls) => webConsole.announce(urls),
    readiness,
    metrics: () =>
      renderPrometheus([
        ...metrics.families(),
        gaugeFamily(
          'cogitave_mcp_sessions_open',
          'MCP 2025-11-25 sessions open in this process.',
          endpoint.sessions.count,
        ),
        gaugeFamily(
          'cogitave_mcp_session_streams_open',
          'SSE streams open across the 2025-11-25 sessions (GET streams and streamed answers).',
          endpoint.sessions.openStreams,
        ),
        gaugeFamily(
          'cogitave_mcp_listen_streams_open',
          'MCP 2026-07-28 subscriptions/listen streams open in this process.',
          endpoint.listenStreams,
        ),
      ]),
    describe: {
      ...describe,
      ...(github ? { webhooks: `github ${github.settings.repository}` } : {}),
    },
    start: () => {
      // A standalone gateway opens its LISTEN connection now, not on the first request.
      if (options.standalone) void app.changes.ready();
      searchBuilt().catch(() => undefined);
    },
    started: searchBuilt,
    drain: () => endpoint.close(),
    close: () => composed.close(),
  };
};
