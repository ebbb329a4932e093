import {
  createMcpHandler,
  INVALID_PARAMS,
  isLegacyRequest,
  PARSE_ERROR,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { Config } from '../../services/runtime/config.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { TokenAuth } from '../auth/tokens.js';
import { LOCAL_CALLER, type Caller } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import {
  decideAccess,
  oauthScopeOf,
  oauthScopesOf,
  readScopeOf,
} from '../../services/access/grants.js';
import { modernDeliveryFor, scopeDelivery } from '../server/subscriptions.js';
import type { GatewayMetrics } from '../metrics.js';
import type { GatewayServices } from '../services.js';
import { exceedsDepth, MAX_MESSAGE_DEPTH } from '../server/depth.js';
import type { HttpRoute, PublicUrls } from './server.js';
import { sendWebResponse, toWebRequest } from './node-bridge.js';
import { paramHeaderDeclarations, paramHeaderProblem } from './param-headers.js';
import { countStream } from './streams.js';
import { createLegacySessions, type LegacySessions, type SessionLimits } from './sessions.js';

export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
const SCOPES = (['read', 'propose', 'network-write'] as const).map(oauthScopeOf);

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

export interface ListenLimits {
  /** Listen streams open in this process, all callers together. */
  readonly maxStreams?: number;
  /** Listen streams one caller may hold open at a time. */
  readonly maxPerCaller?: number;
}

export const DEFAULT_LISTEN_LIMITS = { maxStreams: 1024, maxPerCaller: 64 } as const;

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

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });

const AUTH_INFO_CALLER = 'cogitave/caller';

const authInfoOf = (caller: Caller): AuthInfo => ({
  token: '',
  clientId: caller.actor,
  scopes: oauthScopesOf(caller.grants),
  extra: { [AUTH_INFO_CALLER]: caller },
});

const callerOf = (authInfo: AuthInfo | undefined): Caller =>
  (authInfo?.extra?.[AUTH_INFO_CALLER] as Caller | undefined) ?? LOCAL_CALLER;

/** 2026-07-28's "header mismatch" (`HeaderMismatch`, HTTP 400). */
const HEADER_MISMATCH = -32020;

/** Bodies of /mcp over this are refused (413) before anything parses them. */
export const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;

type ParsedMessage =
  | { readonly kind: 'parsed'; readonly value: unknown }
  | { readonly kind: 'refused'; readonly response: Response };

const jsonRpcError = (status: number, code: number, message: string, id: unknown = null) =>
  json(status, { jsonrpc: '2.0', id, error: { code, message } });

/**
 * The JSON-RPC message(s) of a POST body. Not JSON is a parse error (-32700); nesting deeper
 * than `MAX_MESSAGE_DEPTH` is refused before any schema walks it recursively (-32602, with the
 * request's id when it has one).
 */
const parseMessage = (body: Buffer | undefined): ParsedMessage => {
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

interface JsonRpcCall {
  readonly method?: unknown;
  readonly params?: Record<string, unknown>;
}

/**
 * Streamable HTTP at `/mcp`, serving both protocol revisions from one gateway:
 * 2026-07-28 (per-request `_meta`, `server/discover`, `subscriptions/listen`) through the
 * SDK's `createMcpHandler` in strict mode, and 2025-11-25 (sessions, `resources/subscribe`,
 * resumable SSE) through our own sessions; `isLegacyRequest` decides per request. The HTTP
 * server's edge has checked Host and Origin (403) before this runs; here come the bearer token
 * (401), the body (-32700, depth), then the grant the request needs (403 `insufficient_scope`).
 */
export const createMcpEndpoint = (options: McpEndpointOptions): McpEndpoint => {
  const { gateway, logger, auth } = options;
  const onerror = (error: Error): void => {
    logger.debug({ err: error }, 'MCP request refused or failed');
  };
  const maxListenStreams = options.listen?.maxStreams ?? DEFAULT_LISTEN_LIMITS.maxStreams;
  // One 2026-07-28 handler per caller: its listen streams hear only what that caller may read
  // (the SDK's bus matches URIs, not callers), so each caller's bus gets its own deliveries.
  const modernHandlers = new Map<Caller, ReturnType<typeof createMcpHandler>>();
  const modernFor = (caller: Caller): ReturnType<typeof createMcpHandler> => {
    let handler = modernHandlers.get(caller);
    if (!handler) {
      handler = createMcpHandler(
        (context) => gateway.createServer(callerOf(context.authInfo), { era: context.era }),
        { legacy: 'reject', onerror, maxSubscriptions: maxListenStreams },
      );
      modernHandlers.set(caller, handler);
    }
    return handler;
  };
  const maxListenPerCaller = options.listen?.maxPerCaller ?? DEFAULT_LISTEN_LIMITS.maxPerCaller;
  const listening = new Map<string, number>();
  let listenStreams = 0;
  const adjustListening = (actor: string, delta: number): void => {
    const now = (listening.get(actor) ?? 0) + delta;
    if (now <= 0) listening.delete(actor);
    else listening.set(actor, now);
    listenStreams += delta;
  };

  const declarations = new Map<string, ReturnType<typeof paramHeaderDeclarations>>();
  /** -32020 (HTTP 400) when a tools/call's Mcp-Param-* headers disagree with its arguments. */
  const paramHeaderMismatch = (request: Request, body: unknown): Response | undefined => {
    const call = body as (JsonRpcCall & { id?: unknown }) | undefined;
    const name = call?.method === 'tools/call' ? call.params?.name : undefined;
    if (typeof name !== 'string') return undefined;
    let declared = declarations.get(name);
    if (!declared) {
      const schema = gateway.toolInputSchema(name);
      // An unknown tool declares nothing (its call is answered -32602); only listed names are
      // kept, so the cache is bounded by the tool list.
      if (schema === undefined) return undefined;
      declared = paramHeaderDeclarations(schema);
      declarations.set(name, declared);
    }
    const problem = paramHeaderProblem(declared, call?.params?.arguments, request.headers);
    return problem === undefined
      ? undefined
      : jsonRpcError(400, HEADER_MISMATCH, `Header mismatch: ${problem}`, call?.id ?? null);
  };

  /** A 2026-07-28 request; listen streams are counted per caller while they are open. */
  const serveModern = async (
    request: Request,
    body: unknown,
    caller: Caller,
  ): Promise<Response> => {
    const mismatch = paramHeaderMismatch(request, body);
    if (mismatch) return mismatch;
    const isListen = (body as JsonRpcCall | undefined)?.method === 'subscriptions/listen';
    if (isListen && listenStreams >= maxListenStreams) {
      return jsonRpcError(
        503,
        -32000,
        `This server holds ${String(maxListenStreams)} subscriptions/listen streams, its limit; retry later`,
        (body as { id?: unknown }).id ?? null,
      );
    }
    if (isListen && (listening.get(caller.actor) ?? 0) >= maxListenPerCaller) {
      return jsonRpcError(
        429,
        -32000,
        `${caller.actor} already holds ${String(maxListenPerCaller)} subscriptions/listen streams (the most one caller may hold); close one first`,
        (body as { id?: unknown }).id ?? null,
      );
    }
    const response = await modernFor(caller).fetch(request, {
      authInfo: authInfoOf(caller),
      ...(body !== undefined ? { parsedBody: body } : {}),
    });
    if (!isListen) return response;
    return countStream(response, {
      opened: () => {
        adjustListening(caller.actor, 1);
      },
      closed: () => {
        adjustListening(caller.actor, -1);
      },
    });
  };
  const sessions = createLegacySessions({ gateway, logger, ...options.sessions });

  // Every committed change reaches 2026-07-28 listen streams here; 2025 sessions follow the
  // feed themselves. The feed is cross-process (LISTEN/NOTIFY), so changes made through any
  // replica arrive.
  const stopFeed = options.services.changes.onChange((signal) => {
    const delivery = modernDeliveryFor(signal);
    for (const [caller, handler] of modernHandlers) {
      const scoped = scopeDelivery(readScopeOf(caller.grants), signal, delivery);
      for (const uri of scoped.updated) handler.notify.resourceUpdated(uri);
      if (scoped.listChanged) handler.notify.resourcesChanged();
      // Counted once per caller that has a stream listening (its bus fans out to them).
      if ((listening.get(caller.actor) ?? 0) === 0) continue;
      scoped.updated.forEach(() => {
        options.metrics?.notificationSent('notifications/resources/updated');
      });
      if (scoped.listChanged)
        options.metrics?.notificationSent('notifications/resources/list_changed');
    }
  });

  const resourceUrl = (urls: PublicUrls): string => urls.mcp.href;
  // RFC 9728: the metadata of `https://host/path` lives at `https://host/.well-known/…/path`.
  const metadataUrl = (urls: PublicUrls): string =>
    `${urls.mcp.origin}${PROTECTED_RESOURCE_PATH}${urls.mcp.pathname}`;

  const unauthorized = (urls: PublicUrls, presented: boolean): Response => {
    const error = presented ? ', error="invalid_token"' : '';
    return json(
      401,
      {
        error: 'invalid_token',
        error_description: presented
          ? 'The bearer token is not known to this server'
          : 'This endpoint needs an Authorization: Bearer <token> header',
      },
      {
        'www-authenticate': `Bearer realm="cogitave"${error}, resource_metadata="${metadataUrl(urls)}"`,
      },
    );
  };

  const insufficientScope = (urls: PublicUrls, scope: string, detail: string): Response =>
    json(
      403,
      { error: 'insufficient_scope', error_description: detail, scope },
      {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl(urls)}", error_description="${detail.replace(/"/g, "'")}"`,
      },
    );

  /** The 403 a request earns when it names something outside the caller's grants. */
  const scopeProblem = (urls: PublicUrls, caller: Caller, body: unknown): Response | undefined => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const call = body as JsonRpcCall;
    if (call.method === 'tools/call' && typeof call.params?.name === 'string') {
      const tool = gateway.tools.get(call.params.name);
      const decision = tool && decideAccess(caller.grants, tool.definition.access);
      if (tool && decision && !decision.allowed) {
        return insufficientScope(
          urls,
          decision.missing,
          `${tool.definition.name} needs the "${decision.missing}" grant, which ${caller.actor} does not have`,
        );
      }
    }
    if (call.method === 'subscriptions/listen') {
      // 2026-07-28 carries the URIs in params.notifications (a SubscriptionFilter).
      const filter = call.params?.notifications as { resourceSubscriptions?: unknown } | undefined;
      const uris = Array.isArray(filter?.resourceSubscriptions)
        ? filter.resourceSubscriptions.filter((uri): uri is string => typeof uri === 'string')
        : [];
      for (const uri of uris) {
        const problem = gateway.subscriptionProblem(caller, uri);
        if (problem !== undefined) return insufficientScope(urls, 'read', problem);
      }
    }
    return undefined;
  };

  const serveMcp = async (
    request: Request,
    body: Buffer | undefined,
    urls: PublicUrls,
  ): Promise<Response> => {
    let caller = LOCAL_CALLER;
    if (auth.enabled) {
      const header = request.headers.get('authorization');
      const found = auth.authenticate(header);
      if (!found) return unauthorized(urls, header !== null);
      caller = found;
    }
    const parsed = parseMessage(body);
    if (parsed.kind === 'refused') return parsed.response;
    const denied = scopeProblem(urls, caller, parsed.value);
    if (denied) return denied;
    // The body is parsed once, here: the era check and the transports take it as parsed
    // instead of cloning the request and parsing it again (a hot-path cost on every call).
    if (await isLegacyRequest(request, parsed.value))
      return sessions.handle(request, parsed.value, caller);
    return serveModern(request, parsed.value, caller);
  };

  const protectedResource = (urls: PublicUrls): Response =>
    json(200, {
      resource: resourceUrl(urls),
      authorization_servers: [],
      bearer_methods_supported: ['header'],
      scopes_supported: SCOPES,
      resource_name: 'Cogitave Core',
    });

  const route = (
    path: string,
    methods: readonly string[],
    serve: (
      request: Request,
      body: Buffer | undefined,
      urls: PublicUrls,
    ) => Promise<Response> | Response,
  ): HttpRoute => ({
    path,
    methods,
    maxBodyBytes: methods.includes('POST') ? MCP_MAX_BODY_BYTES : 0,
    handle: async (req, res, context) => {
      const body = req.method === 'POST' ? await context.readBody() : undefined;
      const request = toWebRequest(req, res, body, context.urls.local);
      await sendWebResponse(res, await serve(request, body, context.urls));
    },
  });

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
      return listenStreams;
    },
    close: async () => {
      stopFeed();
      await sessions.close();
      await Promise.all([...modernHandlers.values()].map((handler) => handler.close()));
    },
  };
};
