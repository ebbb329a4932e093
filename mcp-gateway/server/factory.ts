/* eslint-disable @typescript-eslint/no-deprecated --
 * The low-level Server on purpose: tools/list carries our own 2020-12 schemas, tools/call our
 * own validation messages and grants, resources/list our cursor pagination; logging/setLevel
 * and notifications/message stay served on 2025-11-25 while that revision is supported. */
import type { Server } from '@modelcontextprotocol/server';
import type { ChangeSignal } from '../../projections/change-feed.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { Caller, ToolDefinition } from '../registry.js';
import type { GatewayMetrics } from '../metrics.js';
import type { GatewayServices } from '../services.js';
import { readScopeOf, type ReadScope } from '../../services/access/grants.js';
import { indexExtension, type GatewayExtension } from './extension.js';
import { SERVER_ICON } from './icons.js';
import { spaced } from './spacing.js';
import { serverInstructions } from './instructions.js';
import { getPrompt, listPrompts, PROMPT_NAMES } from './prompts.js';
import { GatewayServer, invalidParams } from './protocol.js';
import {
  assertUri,
  completeTemplateVariable,
  listResourcesPage,
  parseResourceUri,
  readResource,
  resourceListEntry,
  resourceTemplates,
  subscriptionProblem,
} from './resources.js';
import { ConnectionSubscriptions, modernDeliveryFor, scopeDelivery } from './subscriptions.js';
import { callTool, prepareTools, toolListEntry, type PreparedTool } from './tools.js';

export type Era = 'legacy' | 'modern';

export interface McpGatewayOptions {
  readonly tools: readonly ToolDefinition[];
  readonly services: GatewayServices;
  readonly logger: Logger;
  readonly version: string;
  /** Served beside the registry (the conformance harness's fixtures); the product has none. */
  readonly extension?: GatewayExtension;
  /** Tool calls and notifications are counted here for /metrics. */
  readonly metrics?: GatewayMetrics;
}

export interface CreateServerOptions {
  readonly era: Era;
  /**
   * The server lives as long as a connection (a 2025-11-25 HTTP session, a stdio connection)
   * and pushes change notifications itself: `resources/subscribe` on the 2025 era, the
   * entry's listen router on the 2026 era (stdio). Per-request servers leave this off; the
   * HTTP handler's bus publishes for them.
   */
  readonly follow?: boolean;
}

/** One registry, one set of readers, any number of MCP server instances (one per caller). */
export interface McpGateway {
  readonly tools: ReadonlyMap<string, PreparedTool>;
  createServer(caller: Caller, options: CreateServerOptions): Server;
  /** Why the caller may not follow `uri` (subscribe, listen), or undefined; see resources.ts. */
  subscriptionProblem(caller: Caller, uri: string): string | undefined;
  /** The input schema `tools/list` shows for `name` (registry or extension), if listed. */
  toolInputSchema(name: string): unknown;
}

const SERVER_NAME = 'cogitave-core';
/** At most one `notifications/resources/list_changed` per session in this window. */
const LIST_CHANGED_SPACING_MS = 100;

/**
 * These lists answer in one page, so no cursor can be valid: a client passing one is told so
 * (-32602) rather than silently given the first page again.
 */
const refuseCursor = (method: string, cursor: string | undefined): void => {
  if (cursor !== undefined)
    throw invalidParams(`Invalid cursor: ${method} answers in one page; call it without a cursor`);
};

export const createMcpGateway = (options: McpGatewayOptions): McpGateway => {
  const { services, logger } = options;
  const tools = prepareTools(options.tools);
  const extension = indexExtension(options.extension, new Set(tools.keys()), PROMPT_NAMES);
  const toolList = [...[...tools.values()].map(toolListEntry), ...extension.toolEntries];

  const createServer = (caller: Caller, serverOptions: CreateServerOptions): Server => {
    // Resources are reads: the access decision for them is the caller's read scope.
    const scope = readScopeOf(caller.grants);
    const server = new GatewayServer(
      {
        name: SERVER_NAME,
        title: 'Cogitave Core',
        version: options.version,
        icons: [SERVER_ICON],
      },
      {
        capabilities: {
          // The tool and prompt lists are fixed for the life of the process: no list_changed.
          tools: { listChanged: false },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: false },
          logging: {},
          completions: {},
        },
        instructions: serverInstructions(services.approvals.current()),
      },
      {
        logger,
        era: serverOptions.era,
        onNotification: (method) => options.metrics?.notificationSent(method),
      },
    );

    server.setRequestHandler('tools/list', (request) => {
      refuseCursor('tools/list', request.params?.cursor);
      return { tools: toolList };
    });

    server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = tools.get(request.params.name);
      const extra = tool ? undefined : extension.tools.get(request.params.name);
      if (extra)
        return extra.call(request.params.arguments, { caller, era: serverOptions.era, ctx });
      // An unknown tool is a protocol error (-32602) on both revisions, not a tool result.
      if (!tool) {
        throw invalidParams(
          `Unknown tool "${request.params.name}"; call tools/list for the ${String(tools.size)} tools available`,
        );
      }
      const progressToken = ctx.mcpReq._meta?.progressToken;
      return callTool(tool, request.params.arguments, {
        services,
        caller,
        logger,
        signal: ctx.mcpReq.signal,
        metrics: options.metrics,
        progress: async (progress, total, message) => {
          if (progressToken === undefined) return;
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: {
              progressToken,
              progress,
              ...(total !== undefined ? { total } : {}),
              ...(message !== undefined ? { message } : {}),
            },
          });
        },
        log: (level, data) =>
          serverOptions.era === 'legacy'
            ? ctx.mcpReq.log(level, data, SERVER_NAME)
            : Promise.resolve(),
      });
    });

    server.setRequestHandler('resources/list', async (request) => {
      const page = await listResourcesPage(services.resources, scope, {
        cursor: request.params?.cursor,
        _meta: request.params?._meta,
      });
      const first = request.params?.cursor === undefined ? extension.resources : [];
      return {
        resources: [...page.entries.map(resourceListEntry), ...first],
        ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
      };
    });

    server.setRequestHandler('resources/templates/list', (request) => {
      refuseCursor('resources/templates/list', request.params?.cursor);
      return { resourceTemplates: [...resourceTemplates(scope), ...extension.resourceTemplates] };
    });

    server.setRequestHandler('resources/read', async (request, ctx) => {
      const extra = extension.read?.(request.params.uri, { caller, era: serverOptions.era, ctx });
      if (extra) return extra;
      // A resource read sees the caller's own writes, as a read tool does (runTool).
      await services.readYourWrites.caughtUp(caller.actor);
      return readResource(services.resources, scope, caller.actor, request.params.uri);
    });

    server.setRequestHandler('prompts/list', (request) => {
      refuseCursor('prompts/list', request.params?.cursor);
      const { prompts } = listPrompts();
      return { prompts: [...prompts, ...extension.promptEntries] };
    });
    server.setRequestHandler('prompts/get', (request, ctx) => {
      const extra = extension.prompts.get(request.params.name);
      if (extra)
        return extra.get(request.params.arguments, { caller, era: serverOptions.era, ctx });
      return getPrompt(request.params.name, request.params.arguments);
    });

    server.setRequestHandler('completion/complete', async (request) => {
      const { ref, argument, context } = request.params;
      if (ref.type !== 'ref/resource') return { completion: { values: [] } };
      const completion = await completeTemplateVariable(
        services.resources,
        scope,
        ref.uri,
        argument.name,
        argument.value,
        context?.arguments,
      );
      return { completion };
    });

    if (serverOptions.follow === true) follow(server, caller, scope, serverOptions.era);
    return server;
  };

  /** Connection-scoped servers push the change feed's notices themselves. */
  const follow = (server: Server, caller: Caller, scope: ReadScope, era: Era): void => {
    const subscriptions = new ConnectionSubscriptions();
    if (era === 'legacy') {
      const subscribeUri = (uri: string): void => {
        assertUri(uri);
        // Another scheme names nothing of ours: accepted, and never notified.
        if (!uri.startsWith('cogitave:')) return;
        if (!parseResourceUri(uri))
          throw invalidParams(
            `Cannot subscribe to ${uri}: use cogitave://{type}/{id} or a collection cogitave://{type}/`,
          );
        const problem = subscriptionProblem(scope, caller.actor, uri);
        if (problem !== undefined) throw invalidParams(`Cannot subscribe: ${problem}`);
        subscriptions.add(uri);
      };
      server.setRequestHandler('resources/subscribe', (request) => {
        subscribeUri(request.params.uri);
        return {};
      });
      server.setRequestHandler('resources/unsubscribe', (request) => {
        subscriptions.remove(request.params.uri);
        return {};
      });
    }
    const notDelivered = (error: unknown): void => {
      logger.debug({ err: error }, 'change notification not delivered');
    };
    // "The list changed" carries nothing but the fact: one per window says all a burst says.
    const listChanged = spaced(LIST_CHANGED_SPACING_MS, () => {
      server.sendResourceListChanged().catch(notDelivered);
    });
    const deliver = async (signal: ChangeSignal): Promise<void> => {
      const delivery = scopeDelivery(
        scope,
        signal,
        era === 'legacy' ? subscriptions.deliveryFor(signal) : modernDeliveryFor(signal),
      );
      for (const uri of delivery.updated) await server.sendResourceUpdated({ uri });
      if (delivery.listChanged) listChanged.request();
    };
    const stop = services.changes.onChange((signal) => {
      deliver(signal).catch(notDelivered);
    });
    const previous = server.onclose;
    server.onclose = () => {
      stop();
      listChanged.stop();
      previous?.();
    };
  };

  const inputSchemas = new Map(toolList.map((entry) => [entry.name, entry.inputSchema]));
  return {
    tools,
    createServer,
    toolInputSchema: (name) => inputSchemas.get(name),
    subscriptionProblem: (caller, uri) =>
      subscriptionProblem(readScopeOf(caller.grants), caller.actor, uri),
  };
};
