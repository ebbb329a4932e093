import type { ServerResponse } from 'node:http';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Config } from '../../services/runtime/config.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { TokenAuth } from '../auth/tokens.js';
import type { GatewayMetrics } from '../metrics.js';
import { LOCAL_CALLER } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import type { GatewayServices } from '../services.js';
import {
  PROTECTED_RESOURCE_PATH,
  protectedResource,
  scopeProblem,
  unauthorized,
} from './bearer.js';
import { parseMessage } from './json-rpc.js';
import { noteChallenge, noteRefusal, REFUSAL_STATUSES } from './refusals.js';
import { createModernRequests, type ListenLimits } from './modern.js';
import { sendWebResponse, toWebRequest } from './node-bridge.js';
import type { HttpRoute, PublicUrls } from './server.js';
import { createLegacySessions, type LegacySessions, type SessionLimits } from './sessions.js';

export { PROTECTED_RESOURCE_PATH } from './bearer.js';
export { DEFAULT_LISTEN_LIMITS, type ListenLimits } from './modern.js';

export const MCP_PATH = '/mcp';

/** Bodies of /mcp over this are refused (413) before anything parses them. */
export const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface McpEndpointOptions {
  readonly gateway: McpGateway;
  readonly services: GatewayServices;
  readonly auth: TokenAuth;
  readonly logger: Logger;
  /** Bounds of the 2025-11-25 sessions (defaults in sessions.ts). */
  readonly sessions?: SessionLimits;
  /** Bounds of the 2026-07-28 `subscriptions/listen` streams. */
  readonly listen?: ListenLimits;
  /** Notifications sent on listen streams are counted here. */
  readonly metrics?: GatewayMetrics;
}

/** The session and listen bounds the configuration sets. */
export const endpointLimitsFromConfig = (
  config: Config,
): Pick<McpEndpointOptions, 'sessions' | 'listen'> => ({
  sessions: {
    maxSessions: config.mcpMaxSessions,
    maxPerCaller: config.mcpMaxSessionsPerCaller,
    idleTimeoutMs: config.mcpSessionIdleMs,
  },
  listen: {
    maxStreams: config.mcpMaxListenStreams,
    maxPerCaller: config.mcpMaxListenStreamsPerCaller,
  },
});

export interface McpEndpoint {
  /** `/mcp` and the RFC 9728 metadata documents, for the process's HTTP server. */
  readonly routes: readonly HttpRoute[];
  readonly sessions: LegacySessions;
  /** 2026-07-28 `subscriptions/listen` streams open now. */
  readonly listenStreams: number;
  close(): Promise<void>;
}

type Serve = (
  request: Request,
  body: Buffer | undefined,
  urls: PublicUrls,
  res: ServerResponse,
) => Promise<Response> | Response;

/** A route of the process's HTTP server answered by a fetch-style `serve`. */
const route = (path: string, methods: readonly string[], serve: Serve): HttpRoute => ({
  path,
  methods,
  maxBodyBytes: methods.includes('POST') ? MCP_MAX_BODY_BYTES : 0,
  handle: async (req, res, context) => {
    const body = req.method === 'POST' ? await context.readBody() : undefined;
    const request = toWebRequest(req, res, body, context.urls.local);
    const response = await serve(request, body, context.urls, res);
    if (REFUSAL_STATUSES.has(response.status))
      noteChallenge(res, response.headers.get('www-authenticate'));
    await sendWebResponse(res, response);
  },
});

/**
 * Streamable HTTP at `/mcp`, serving both protocol revisions from one gateway:
 * 2026-07-28 (per-request `_meta`, `server/discover`, `subscriptions/listen`) through the
 * SDK's `createMcpHandler` in strict mode (modern.ts), and 2025-11-25 (sessions,
 * `resources/subscribe`, resumable SSE) through our own sessions; `isLegacyRequest` decides per
 * request. The HTTP server's edge has checked Host and Origin (403) before this runs; here come
 * the bearer token (401), the body (-32700, depth), then the grant the request needs (403
 * `insufficient_scope`, bearer.ts).
 */
export const createMcpEndpoint = (options: McpEndpointOptions): McpEndpoint => {
  const { gateway, logger, auth } = options;
  const modern = createModernRequests({
    gateway,
    onerror: (error: Error): void => {
      logger.debug({ err: error }, 'MCP request refused or failed');
    },
    listen: options.listen,
    metrics: options.metrics,
  });
  const sessions = createLegacySessions({ gateway, logger, ...options.sessions });

  // Every committed change reaches 2026-07-28 listen streams here; 2025 sessions follow the
  // feed themselves. The feed is cross-process (LISTEN/NOTIFY), so changes made through any
  // replica arrive.
  const stopFeed = options.services.changes.onChange((signal) => {
    modern.deliver(signal);
  });

  const serveMcp = async (
    request: Request,
    body: Buffer | undefined,
    urls: PublicUrls,
    res: ServerResponse,
  ): Promise<Response> => {
    let caller = LOCAL_CALLER;
    if (auth.enabled) {
      const header = request.headers.get('authorization');
      const found = auth.authenticate(header);
      if (!found) {
        noteRefusal(res, { reason: header === null ? 'missing_token' : 'invalid_token' });
        return unauthorized(urls, header !== null);
      }
      caller = found;
    }
    // Whoever refuses this request later (a grant, a limit) is refusing this caller.
    noteRefusal(res, { actor: caller.actor });
    const parsed = parseMessage(body);
    if (parsed.kind === 'refused') return parsed.response;
    const denied = scopeProblem(gateway, urls, caller, parsed.value);
    if (denied) return denied;
    // The body is parsed once, here: the era check and the transports take it as parsed
    // instead of cloning the request and parsing it again (a hot-path cost on every call).
    if (await isLegacyRequest(request, parsed.value))
      return sessions.handle(request, parsed.value, caller);
    return modern.serve(request, parsed.value, caller);
  };

  return {
    routes: [
      route(MCP_PATH, ['GET', 'POST', 'DELETE'], serveMcp),
      route(PROTECTED_RESOURCE_PATH, ['GET'], (_request, _body, urls) => protectedResource(urls)),
      route(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, ['GET'], (_request, _body, urls) =>
        protectedResource(urls),
      ),
    ],
    sessions,
    get listenStreams() {
      return modern.listenStreams;
    },
    close: async () => {
      stopFeed();
      await sessions.close();
      await modern.close();
    },
  };
};
