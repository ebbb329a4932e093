import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { ChangeSignal } from '../../projections/change-feed.js';
import { oauthScopesOf, readScopeOf } from '../../services/access/grants.js';
import type { GatewayMetrics } from '../metrics.js';
import { LOCAL_CALLER, type Caller } from '../registry.js';
import type { McpGateway } from '../server/factory.js';
import { modernDeliveryFor, scopeDelivery } from '../server/subscriptions.js';
import { jsonRpcError, type JsonRpcCall } from './json-rpc.js';
import { paramHeaderDeclarations, paramHeaderProblem } from './param-headers.js';
import { countStream } from './streams.js';

export interface ListenLimits {
  /** Listen streams open in this process, all callers together. */
  readonly maxStreams?: number;
  /** Listen streams one caller may hold open at a time. */
  readonly maxPerCaller?: number;
}

export const DEFAULT_LISTEN_LIMITS = { maxStreams: 1024, maxPerCaller: 64 } as const;

/** 2026-07-28's "header mismatch" (`HeaderMismatch`, HTTP 400). */
const HEADER_MISMATCH = -32020;

const AUTH_INFO_CALLER = 'cogitave/caller';

const authInfoOf = (caller: Caller): AuthInfo => ({
  token: '',
  clientId: caller.actor,
  scopes: oauthScopesOf(caller.grants),
  extra: { [AUTH_INFO_CALLER]: caller },
});

const callerOf = (authInfo: AuthInfo | undefined): Caller =>
  (authInfo?.extra?.[AUTH_INFO_CALLER] as Caller | undefined) ?? LOCAL_CALLER;

/** -32020 (HTTP 400) when a tools/call's Mcp-Param-* headers disagree with its arguments. */
const paramHeaderCheck = (gateway: McpGateway) => {
  const declarations = new Map<string, ReturnType<typeof paramHeaderDeclarations>>();
  return (request: Request, body: unknown): Response | undefined => {
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
};

export interface ModernOptions {
  readonly gateway: McpGateway;
  readonly onerror: (error: Error) => void;
  readonly listen?: ListenLimits | undefined;
  /** Notifications sent on listen streams are counted here. */
  readonly metrics?: GatewayMetrics | undefined;
}

/** The 2026-07-28 side of /mcp (per-request `_meta`, `server/discover`, `subscriptions/listen`). */
export interface ModernRequests {
  serve(request: Request, body: unknown, caller: Caller): Promise<Response>;
  /** One committed change, told to each caller's listen streams as far as its scope reaches. */
  deliver(signal: ChangeSignal): void;
  /** `subscriptions/listen` streams open now. */
  readonly listenStreams: number;
  close(): Promise<void>;
}

/**
 * One SDK handler per caller, in strict mode: its listen streams hear only what that caller may
 * read (the SDK's bus matches URIs, not callers), so each caller's bus gets its own deliveries.
 * Listen streams are counted per caller and in all while they are open, within ListenLimits.
 */
export const createModernRequests = (options: ModernOptions): ModernRequests => {
  const { gateway, onerror } = options;
  const maxListenStreams = options.listen?.maxStreams ?? DEFAULT_LISTEN_LIMITS.maxStreams;
  const maxListenPerCaller = options.listen?.maxPerCaller ?? DEFAULT_LISTEN_LIMITS.maxPerCaller;
  const handlers = new Map<Caller, ReturnType<typeof createMcpHandler>>();
  const handlerFor = (caller: Caller): ReturnType<typeof createMcpHandler> => {
    let handler = handlers.get(caller);
    if (!handler) {
      handler = createMcpHandler(
        (context) => gateway.createServer(callerOf(context.authInfo), { era: context.era }),
        { legacy: 'reject', onerror, maxSubscriptions: maxListenStreams },
      );
      handlers.set(caller, handler);
    }
    return handler;
  };
  const listening = new Map<string, number>();
  let listenStreams = 0;
  const adjustListening = (actor: string, delta: number): void => {
    const now = (listening.get(actor) ?? 0) + delta;
    if (now <= 0) listening.delete(actor);
    else listening.set(actor, now);
    listenStreams += delta;
  };
  const paramHeaderMismatch = paramHeaderCheck(gateway);

  /** The 503 or 429 of a listen stream over the process's or the caller's limit. */
  const listenRefusal = (body: unknown, caller: Caller): Response | undefined => {
    if (listenStreams >= maxListenStreams) {
      return jsonRpcError(
        503,
        -32000,
        `This server holds ${String(maxListenStreams)} subscriptions/listen streams, its limit; retry later`,
        (body as { id?: unknown }).id ?? null,
      );
    }
    if ((listening.get(caller.actor) ?? 0) >= maxListenPerCaller) {
      return jsonRpcError(
        429,
        -32000,
        `${caller.actor} already holds ${String(maxListenPerCaller)} subscriptions/listen streams (the most one caller may hold); close one first`,
        (body as { id?: unknown }).id ?? null,
      );
    }
    return undefined;
  };

  const serve = async (request: Request, body: unknown, caller: Caller): Promise<Response> => {
    const mismatch = paramHeaderMismatch(request, body);
    if (mismatch) return mismatch;
    const isListen = (body as JsonRpcCall | undefined)?.method === 'subscriptions/listen';
    const refused = isListen ? listenRefusal(body, caller) : undefined;
    if (refused) return refused;
    const response = await handlerFor(caller).fetch(request, {
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

  const deliver = (signal: ChangeSignal): void => {
    const delivery = modernDeliveryFor(signal);
    for (const [caller, handler] of handlers) {
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
  };

  return {
    serve,
    deliver,
    get listenStreams() {
      return listenStreams;
    },
    close: async () => {
      await Promise.all([...handlers.values()].map((handler) => handler.close()));
    },
  };
};
