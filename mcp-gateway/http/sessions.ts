import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../services/runtime/logger.js';
import type { Caller } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import { BoundedEventStore } from './event-store.js';

/**
 * 2025-11-25 over Streamable HTTP: one session per `initialize`, each with its own server
 * instance (its `resources/subscribe` set and change-feed follower), its SSE streams and a
 * bounded event store for `Last-Event-ID` resumption. DELETE ends a session; idle sessions
 * are closed after `idleTimeoutMs`. Sessions live in this process: a load balancer keeps a
 * client on one replica by `Mcp-Session-Id`.
 */
export interface LegacySessionsOptions {
  readonly gateway: McpGateway;
  readonly logger: Logger;
  readonly maxSessions?: number;
  readonly idleTimeoutMs?: number;
  /** Messages kept per session for resumption. */
  readonly eventsPerSession?: number;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly caller: Caller;
  lastSeen: number;
}

export interface LegacySessions {
  handle(request: Request, body: unknown, caller: Caller): Promise<Response>;
  readonly count: number;
  close(): Promise<void>;
}

const jsonRpcError = (status: number, code: number, message: string): Response =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

export const createLegacySessions = (options: LegacySessionsOptions): LegacySessions => {
  const { gateway, logger } = options;
  const maxSessions = options.maxSessions ?? 1000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
  const sessions = new Map<string, Session>();

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (now - session.lastSeen > idleTimeoutMs) {
          logger.info({ sessionId: id }, 'idle MCP session closed');
          sessions.delete(id);
          void session.transport.close().catch(() => undefined);
        }
      }
    },
    Math.min(60_000, idleTimeoutMs),
  );
  sweep.unref();

  /** The body the endpoint already parsed, so the transport does not read it again. */
  const parsedOnce = (body: unknown) => (body !== undefined ? { parsedBody: body } : undefined);

  const open = async (request: Request, body: unknown, caller: Caller): Promise<Response> => {
    if (sessions.size >= maxSessions) {
      return jsonRpcError(503, -32000, 'Too many MCP sessions on this server; retry later');
    }
    const server = gateway.createServer(caller, { era: 'legacy', follow: true });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        eventStore: new BoundedEventStore(options.eventsPerSession ?? 500),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, caller, lastSeen: Date.now() });
          logger.debug({ sessionId: id, actor: caller.actor }, 'MCP session opened');
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
          logger.debug({ sessionId: id }, 'MCP session ended by the client');
        },
      });
    const followerClose = server.onclose;
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      followerClose?.();
    };
    await server.connect(transport);
    return transport.handleRequest(request, parsedOnce(body));
  };

  return {
    handle: async (request, body, caller) => {
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId !== null) {
        const session = sessions.get(sessionId);
        if (!session) return jsonRpcError(404, -32001, 'Session not found; initialize a new one');
        if (session.caller.actor !== caller.actor)
          return jsonRpcError(403, -32000, 'This session belongs to another caller');
        session.lastSeen = Date.now();
        const response = await session.transport.handleRequest(request, parsedOnce(body));
        if (request.method === 'DELETE' && response.ok) {
          sessions.delete(sessionId);
          void session.transport.close().catch(() => undefined);
        }
        return response;
      }
      if (request.method === 'POST' && isInitializeRequest(body))
        return open(request, body, caller);
      return jsonRpcError(
        400,
        -32000,
        'Bad Request: Mcp-Session-Id header required; start a session with initialize',
      );
    },
    get count() {
      return sessions.size;
    },
    close: async () => {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.transport.close().catch(() => undefined)));
    },
  };
};
