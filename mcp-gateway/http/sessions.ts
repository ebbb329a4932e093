import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  isJsonContentType,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../services/runtime/logger.js';
import type { Caller } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import { BoundedEventStore } from './event-store.js';
import { countStream } from './streams.js';

/**
 * 2025-11-25 over Streamable HTTP: one session per `initialize`, each with its own server
 * instance (its `resources/subscribe` set and change-feed follower), its SSE streams and a
 * bounded event store for `Last-Event-ID` resumption. DELETE ends a session; a session with no
 * request and no open stream for `idleTimeoutMs` is closed. Sessions live in this process: a
 * load balancer keeps a client on one replica by `Mcp-Session-Id`.
 *
 * Bounded: nothing is allocated for an `initialize` the transport would refuse (wrong
 * `Accept` or `Content-Type`, not an initialize), and a caller may hold `maxPerCaller` of the
 * `maxSessions` sessions, so no one token can take them all.
 */
export interface SessionLimits {
  /** Sessions in this process, all callers together. */
  readonly maxSessions?: number;
  /** Sessions one caller (token) may hold at a time. */
  readonly maxPerCaller?: number;
  /** A session without requests and without an open stream for this long is closed. */
  readonly idleTimeoutMs?: number;
  /** Messages kept per session for resumption. */
  readonly eventsPerSession?: number;
}

/** What the SSE `retry` field tells a client to wait before it resumes a closed stream. */
const SSE_RETRY_MS = 1000;

export const DEFAULT_SESSION_LIMITS = {
  maxSessions: 1000,
  maxPerCaller: 100,
  idleTimeoutMs: 30 * 60_000,
  eventsPerSession: 500,
} as const;

export interface LegacySessionsOptions extends SessionLimits {
  readonly gateway: McpGateway;
  readonly logger: Logger;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly caller: Caller;
  lastSeen: number;
  /** SSE streams open now (GET streams and POST answers): a listening session is alive. */
  openStreams: number;
}

export interface LegacySessions {
  handle(request: Request, body: unknown, caller: Caller): Promise<Response>;
  readonly count: number;
  /** SSE streams open across the sessions (standalone GET streams and streamed answers). */
  readonly openStreams: number;
  close(): Promise<void>;
}

const jsonRpcError = (
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const accepts = (request: Request, type: string): boolean =>
  (request.headers.get('accept') ?? '').includes(type);

/**
 * Why the transport would refuse this opening request, with the transport's own status and
 * wording, checked before any server instance exists.
 */
const openingProblem = (request: Request, body: unknown): Response | undefined => {
  if (request.method !== 'POST' || !isInitializeRequest(body)) {
    return jsonRpcError(
      400,
      -32000,
      'Bad Request: Mcp-Session-Id header required; start a session with initialize',
    );
  }
  if (!accepts(request, 'application/json') || !accepts(request, 'text/event-stream')) {
    return jsonRpcError(
      406,
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  }
  if (!isJsonContentType(request.headers.get('content-type'))) {
    return jsonRpcError(
      415,
      -32000,
      'Unsupported Media Type: Content-Type must be application/json',
    );
  }
  return undefined;
};

export const createLegacySessions = (options: LegacySessionsOptions): LegacySessions => {
  const { gateway, logger } = options;
  const maxSessions = options.maxSessions ?? DEFAULT_SESSION_LIMITS.maxSessions;
  const maxPerCaller = options.maxPerCaller ?? DEFAULT_SESSION_LIMITS.maxPerCaller;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_SESSION_LIMITS.idleTimeoutMs;
  const sessions = new Map<string, Session>();
  /** Sessions being opened or open, per actor (opening ones count, so a burst cannot pass). */
  const perCaller = new Map<string, number>();
  let opening = 0;

  const release = (actor: string): void => {
    const left = (perCaller.get(actor) ?? 1) - 1;
    if (left <= 0) perCaller.delete(actor);
    else perCaller.set(actor, left);
  };

  const end = async (id: string, reason: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    release(session.caller.actor);
    logger.debug({ sessionId: id, reason }, 'MCP session ended');
    await session.transport.close().catch(() => undefined);
  };

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.openStreams === 0 && now - session.lastSeen > idleTimeoutMs) {
          logger.info({ sessionId: id }, 'idle MCP session closed');
          void end(id, 'idle');
        }
      }
    },
    Math.max(10, Math.min(60_000, Math.floor(idleTimeoutMs / 2))),
  );
  sweep.unref();

  /** The body the endpoint already parsed, so the transport does not read it again. */
  const parsedOnce = (body: unknown) => (body !== undefined ? { parsedBody: body } : undefined);

  /** Counts a streamed answer as an open stream of the session until it ends. */
  const tracked = (session: Session, response: Response): Response =>
    countStream(response, {
      opened: () => {
        session.openStreams += 1;
      },
      closed: () => {
        session.openStreams -= 1;
        session.lastSeen = Date.now();
      },
    });

  const open = async (request: Request, body: unknown, caller: Caller): Promise<Response> => {
    const refused = openingProblem(request, body);
    if (refused) return refused;
    if (sessions.size + opening >= maxSessions) {
      return jsonRpcError(503, -32000, 'Too many MCP sessions on this server; retry later', {
        'retry-after': '30',
      });
    }
    const held = perCaller.get(caller.actor) ?? 0;
    if (held >= maxPerCaller) {
      return jsonRpcError(
        429,
        -32000,
        `${caller.actor} already holds ${String(held)} MCP sessions (the most one caller may hold); end one with DELETE or let an idle one expire`,
        { 'retry-after': '30' },
      );
    }
    perCaller.set(caller.actor, held + 1);
    opening += 1;
    let session: Session | undefined;
    const server = gateway.createServer(caller, { era: 'legacy', follow: true });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        // The SSE `retry` field: how soon a client whose stream the server closed reconnects
        // (with Last-Event-ID) to resume it.
        retryInterval: SSE_RETRY_MS,
        eventStore: new BoundedEventStore(
          options.eventsPerSession ?? DEFAULT_SESSION_LIMITS.eventsPerSession,
        ),
        onsessioninitialized: (id) => {
          session = { transport, caller, lastSeen: Date.now(), openStreams: 0 };
          sessions.set(id, session);
          logger.debug({ sessionId: id, actor: caller.actor }, 'MCP session opened');
        },
        onsessionclosed: (id) => {
          void end(id, 'deleted by the client');
        },
      });
    const followerClose = server.onclose;
    server.onclose = () => {
      if (transport.sessionId !== undefined) void end(transport.sessionId, 'closed');
      followerClose?.();
    };
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, parsedOnce(body));
      return session ? tracked(session, response) : response;
    } finally {
      opening -= 1;
      // Whatever the transport refused after all leaves nothing behind: no session, no server,
      // no change-feed follower.
      if (!session) {
        release(caller.actor);
        await server.close().catch(() => undefined);
      }
    }
  };

  return {
    handle: async (request, body, caller) => {
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId === null) return open(request, body, caller);
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(404, -32001, 'Session not found; initialize a new one');
      if (session.caller.actor !== caller.actor)
        return jsonRpcError(403, -32000, 'This session belongs to another caller');
      session.lastSeen = Date.now();
      const response = await session.transport.handleRequest(request, parsedOnce(body));
      if (request.method === 'DELETE' && response.ok) void end(sessionId, 'deleted by the client');
      return tracked(session, response);
    },
    get count() {
      return sessions.size;
    },
    get openStreams() {
      let streams = 0;
      for (const session of sessions.values()) streams += session.openStreams;
      return streams;
    },
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map((id) => end(id, 'server stopping')));
    },
  };
};
