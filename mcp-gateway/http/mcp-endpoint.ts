import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../services/runtime/logger.js';
import type { TokenAuth } from '../auth/tokens.js';
import { LOCAL_CALLER, type Caller } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import { decideAccess, oauthScopeOf, oauthScopesOf } from '../../services/access/grants.js';
import { modernDeliveryFor } from '../server/subscriptions.js';
import type { GatewayServices } from '../services.js';
import type { HttpRoute } from './server.js';
import { BodyTooLarge, readBody, sendWebResponse, toWebRequest } from './node-bridge.js';
import { createLegacySessions, type LegacySessions } from './sessions.js';

export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
const SCOPES = (['read', 'propose', 'network-write'] as const).map(oauthScopeOf);

export interface McpEndpointOptions {
  readonly gateway: McpGateway;
  readonly services: GatewayServices;
  readonly auth: TokenAuth;
  readonly logger: Logger;
  /** Host header names accepted (DNS-rebinding protection); default: the localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Origin hostnames accepted; default: the localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** The endpoint's public URL (`https://mcp.example.com/mcp`); default: from the Host header. */
  readonly publicUrl?: string;
}

export interface McpEndpoint {
  /** `/mcp` and the RFC 9728 metadata documents, for the process's HTTP server. */
  readonly routes: readonly HttpRoute[];
  readonly sessions: LegacySessions;
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

const parseJson = (body: Buffer | undefined): unknown => {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};

interface JsonRpcCall {
  readonly method?: unknown;
  readonly params?: Record<string, unknown>;
}

/**
 * Streamable HTTP at `/mcp`, serving both protocol revisions from one gateway:
 * 2026-07-28 (per-request `_meta`, `server/discover`, `subscriptions/listen`) through the
 * SDK's `createMcpHandler` in strict mode, and 2025-11-25 (sessions, `resources/subscribe`,
 * resumable SSE) through our own sessions; `isLegacyRequest` decides per request. Origin and
 * Host are checked first (403), then the bearer token (401), then the grant the request needs
 * (403 `insufficient_scope`).
 */
export const createMcpEndpoint = (options: McpEndpointOptions): McpEndpoint => {
  const { gateway, logger, auth } = options;
  const allowedHosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [...(options.allowedOrigins ?? localhostAllowedOrigins())];
  const onerror = (error: Error): void => {
    logger.debug({ err: error }, 'MCP request refused or failed');
  };
  const modern = createMcpHandler(
    (context) => gateway.createServer(callerOf(context.authInfo), { era: context.era }),
    { legacy: 'reject', onerror },
  );
  const sessions = createLegacySessions({ gateway, logger });

  // Every committed change reaches 2026-07-28 listen streams here; 2025 sessions follow the
  // feed themselves. The feed is cross-process (LISTEN/NOTIFY), so changes made through any
  // replica arrive.
  const stopFeed = options.services.changes.onChange((signal) => {
    const delivery = modernDeliveryFor(signal);
    for (const uri of delivery.updated) modern.notify.resourceUpdated(uri);
    if (delivery.listChanged) modern.notify.resourcesChanged();
  });

  const baseUrl = (request: Request): string =>
    options.publicUrl !== undefined
      ? new URL(options.publicUrl).origin
      : `${new URL(request.url).protocol}//${request.headers.get('host') ?? 'localhost'}`;
  const resourceUrl = (request: Request): string =>
    options.publicUrl ?? `${baseUrl(request)}${MCP_PATH}`;
  const metadataUrl = (request: Request): string =>
    `${baseUrl(request)}${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;

  const unauthorized = (request: Request, presented: boolean): Response => {
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
        'www-authenticate': `Bearer realm="cogitave"${error}, resource_metadata="${metadataUrl(request)}"`,
      },
    );
  };

  const insufficientScope = (request: Request, scope: string, detail: string): Response =>
    json(
      403,
      { error: 'insufficient_scope', error_description: detail, scope },
      {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadataUrl(request)}", error_description="${detail.replace(/"/g, "'")}"`,
      },
    );

  /** The 403 a request earns when it names something outside the caller's grants. */
  const scopeProblem = (request: Request, caller: Caller, body: unknown): Response | undefined => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const call = body as JsonRpcCall;
    if (call.method === 'tools/call' && typeof call.params?.name === 'string') {
      const tool = gateway.tools.get(call.params.name);
      const decision = tool && decideAccess(caller.grants, tool.definition.access);
      if (tool && decision && !decision.allowed) {
        return insufficientScope(
          request,
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
        if (problem !== undefined) return insufficientScope(request, 'read', problem);
      }
    }
    return undefined;
  };

  const serveMcp = async (request: Request, body: Buffer | undefined): Promise<Response> => {
    const refused =
      hostHeaderValidationResponse(request, allowedHosts) ??
      originValidationResponse(request, allowedOrigins);
    if (refused) return refused;
    let caller = LOCAL_CALLER;
    if (auth.enabled) {
      const header = request.headers.get('authorization');
      const found = auth.authenticate(header);
      if (!found) return unauthorized(request, header !== null);
      caller = found;
    }
    const parsed = parseJson(body);
    const denied = scopeProblem(request, caller, parsed);
    if (denied) return denied;
    // The body is parsed once, here: the era check and the transports take it as parsed
    // instead of cloning the request and parsing it again (a hot-path cost on every call).
    if (await isLegacyRequest(request, parsed)) return sessions.handle(request, parsed, caller);
    return modern.fetch(request, {
      authInfo: authInfoOf(caller),
      ...(parsed !== undefined ? { parsedBody: parsed } : {}),
    });
  };

  const protectedResource = (request: Request): Response => {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return json(405, { error: 'method_not_allowed' }, { allow: 'GET, HEAD' });
    return json(
      200,
      {
        resource: resourceUrl(request),
        authorization_servers: [],
        bearer_methods_supported: ['header'],
        scopes_supported: SCOPES,
        resource_name: 'Cogitave Core',
      },
      { 'access-control-allow-origin': '*' },
    );
  };

  const route = (
    path: string,
    serve: (request: Request, body: Buffer | undefined) => Promise<Response> | Response,
  ): HttpRoute => ({
    path,
    handle: async (req: IncomingMessage, res: ServerResponse) => {
      let body: Buffer | undefined;
      try {
        body = req.method === 'POST' ? await readBody(req) : undefined;
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        await sendWebResponse(res, json(413, { error: error.message }));
        return;
      }
      const request = toWebRequest(req, res, body);
      await sendWebResponse(res, await serve(request, body));
    },
  });

  return {
    routes: [
      route(MCP_PATH, serveMcp),
      route(PROTECTED_RESOURCE_PATH, protectedResource),
      route(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, protectedResource),
    ],
    sessions,
    close: async () => {
      stopFeed();
      await sessions.close();
      await modern.close();
    },
  };
};
