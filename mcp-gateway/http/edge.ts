import { isIP } from 'node:net';
import { validateOriginHeader } from '@modelcontextprotocol/server';
import type { Config } from '../../services/runtime/config.js';

/**
 * The one Host/Origin policy of the HTTP server, applied before any route runs (DNS-rebinding
 * protection for every route, not only /mcp), and the CORS answer for allowed browser origins.
 * Pure functions of the request's headers, so they are tested exactly.
 */
export interface EdgePolicy {
  /** Host names (no port; IPv6 in brackets) requests may be addressed to. */
  readonly allowedHosts: readonly string[];
  /** Origin host names browsers may send requests from (requests without Origin pass). */
  readonly allowedOrigins: readonly string[];
  /**
   * Origin host names granted CORS (a browser may read the answers): the explicitly configured
   * MCP_ALLOWED_ORIGINS only, never the localhost defaults, so that no web page served from some
   * other local port can read the local mode's data.
   */
  readonly corsOrigins: readonly string[];
}

const LOCALHOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Which Host a route accepts: the allowlist, or also a bare IP address (probes, scrapers). */
export type HostRule = 'allowlist' | 'allowlist-or-ip';

export interface ParsedHost {
  /** Lower-case; IPv6 literals keep their brackets (`[::1]`), as allowlists name them. */
  readonly hostname: string;
  readonly port: number | undefined;
}

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_HEADER = new RegExp(
  `^(?:(?<name>${LABEL}(?:\\.${LABEL})*\\.?)|\\[(?<ipv6>[0-9a-f:.]+)\\])(?::(?<port>\\d{1,5}))?$`,
  'i',
);

/** A `Host` header as RFC 9110 allows it (reg-name or IP literal, optional port), or undefined. */
export const parseHostHeader = (value: string | undefined): ParsedHost | undefined => {
  if (value === undefined || value.length > 300) return undefined;
  const match = HOST_HEADER.exec(value);
  if (!match?.groups) return undefined;
  const { name, ipv6, port } = match.groups;
  if (ipv6 !== undefined && isIP(ipv6) !== 6) return undefined;
  const number = port === undefined ? undefined : Number(port);
  if (number !== undefined && (number < 1 || number > 65_535)) return undefined;
  const hostname = ipv6 !== undefined ? `[${ipv6.toLowerCase()}]` : (name ?? '').toLowerCase();
  return { hostname: hostname.replace(/\.$/, ''), port: number };
};

const isIpLiteral = (hostname: string): boolean =>
  isIP(hostname) === 4 || (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) === 6);

export type EdgeDecision =
  | { readonly kind: 'pass'; readonly corsOrigin: string | undefined }
  | {
      readonly kind: 'refuse';
      readonly status: 400 | 403;
      /** What was refused, for the activity log: the Host header or the Origin. */
      readonly reason: 'host' | 'origin';
      readonly detail: string;
    };

/**
 * Whether a request may reach its route. A malformed or missing Host is 400 (it names nothing);
 * a Host or Origin outside the allowlists is 403. A rebinding attack always arrives under the
 * attacker's DNS name, so a route that probes and scrapers reach by address may also accept a
 * bare IP literal without weakening the protection.
 */
export const decideEdge = (
  headers: { readonly host: string | undefined; readonly origin: string | undefined },
  rule: HostRule,
  policy: EdgePolicy,
): EdgeDecision => {
  const host = parseHostHeader(headers.host);
  if (!host) {
    return {
      kind: 'refuse',
      status: 400,
      reason: 'host',
      detail:
        headers.host === undefined
          ? 'The request has no Host header.'
          : 'The Host header is not a host name or IP address with an optional port (1-65535).',
    };
  }
  const hostAllowed =
    policy.allowedHosts.includes(host.hostname) ||
    (rule === 'allowlist-or-ip' && isIpLiteral(host.hostname));
  if (!hostAllowed) {
    return {
      kind: 'refuse',
      status: 403,
      reason: 'host',
      detail: `Host ${host.hostname} is not served here (DNS-rebinding protection); the operator lists accepted names in MCP_ALLOWED_HOSTS.`,
    };
  }
  const origin = validateOriginHeader(headers.origin, [...policy.allowedOrigins]);
  if (!origin.ok) {
    return {
      kind: 'refuse',
      status: 403,
      reason: 'origin',
      detail: `Origin ${headers.origin ?? ''} may not call this server; the operator lists allowed browser origins in MCP_ALLOWED_ORIGINS.`,
    };
  }
  const corsOrigin =
    origin.origin !== undefined &&
    origin.hostname !== undefined &&
    policy.corsOrigins.includes(origin.hostname)
      ? origin.origin
      : undefined;
  return { kind: 'pass', corsOrigin };
};

/** Request headers a browser client may send (MCP's own, auth, resumption). */
const CORS_REQUEST_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'last-event-id',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
];
/** Response headers a browser client must be able to read. */
const CORS_EXPOSED_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After';

/** CORS headers of an answer to an allowed origin. */
export const corsResponseHeaders = (origin: string): Record<string, string> => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': CORS_EXPOSED_HEADERS,
  vary: 'Origin',
});

/**
 * The preflight answer for an allowed origin: the route's methods and the requested headers
 * that MCP clients use (`Mcp-Param-*` included); anything else is left out, so the browser
 * refuses it.
 */
export const corsPreflightHeaders = (
  origin: string,
  methods: readonly string[],
  requestedHeaders: string | undefined,
): Record<string, string> => {
  const headers = (requestedHeaders ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(
      (name) => name !== '' && (CORS_REQUEST_HEADERS.includes(name) || name.startsWith('mcp-')),
    );
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': methods.join(', '),
    ...(headers.length > 0 ? { 'access-control-allow-headers': headers.join(', ') } : {}),
    'access-control-max-age': '600',
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
};

/**
 * The default Host allowlist: the localhost names, the bind address (a wildcard bind names no
 * host) and the host of the public URL, which is always accepted (GitHub's webhooks and remote
 * clients address the server by it).
 */
export const allowedHostsFor = (
  bind: string,
  publicUrl: string | undefined,
  configured: readonly string[] | undefined,
): string[] => {
  const hosts = new Set(configured ?? LOCALHOST_NAMES);
  if (configured === undefined && bind !== '0.0.0.0' && bind !== '::')
    hosts.add(isIP(bind) === 6 ? `[${bind}]` : bind.toLowerCase());
  if (publicUrl !== undefined) hosts.add(new URL(publicUrl).hostname.toLowerCase());
  return [...hosts];
};

/** The edge policy the configuration describes (MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS, …). */
export const edgePolicyFromConfig = (
  config: Pick<Config, 'httpHost' | 'mcpPublicUrl' | 'mcpAllowedHosts' | 'mcpAllowedOrigins'>,
): EdgePolicy => ({
  allowedHosts: allowedHostsFor(config.httpHost, config.mcpPublicUrl, config.mcpAllowedHosts),
  allowedOrigins: config.mcpAllowedOrigins ?? LOCALHOST_NAMES,
  corsOrigins: config.mcpAllowedOrigins ?? [],
});
