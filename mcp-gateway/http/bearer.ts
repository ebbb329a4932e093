import { decideAccess, oauthScopeOf } from '../../services/access/grants.js';
import type { Caller } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import { json, type JsonRpcCall } from './json-rpc.js';
import type { PublicUrls } from './server.js';

/**
 * /mcp as an OAuth protected resource: its RFC 9728 metadata, and the bearer challenges of a
 * missing or unknown token (401) and of a grant the caller lacks (403 `insufficient_scope`).
 */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
const SCOPES = (['read', 'propose', 'network-write'] as const).map(oauthScopeOf);

// RFC 9728: the metadata of `https://host/path` lives at `https://host/.well-known/…/path`.
const metadataUrl = (urls: PublicUrls): string =>
  `${urls.mcp.origin}${PROTECTED_RESOURCE_PATH}${urls.mcp.pathname}`;

export const protectedResource = (urls: PublicUrls): Response =>
  json(200, {
    resource: urls.mcp.href,
    authorization_servers: [],
    bearer_methods_supported: ['header'],
    scopes_supported: SCOPES,
    resource_name: 'Cogitave Core',
  });

export const unauthorized = (urls: PublicUrls, presented: boolean): Response => {
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
export const scopeProblem = (
  gateway: McpGateway,
  urls: PublicUrls,
  caller: Caller,
  body: unknown,
): Response | undefined => {
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
