/* eslint-disable @typescript-eslint/no-deprecated --
 * The low-level Server on purpose (see factory.ts). */
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { ReadScope } from '../../services/access/grants.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { GatewayMetrics } from '../metrics.js';
import type { Caller } from '../registry.js';
import type { GatewayServices } from '../services.js';
import type { indexExtension } from './extension.js';
import type { Era } from './factory.js';
import { getPrompt, listPrompts } from './prompts.js';
import { increasingProgress, type ProgressSender } from './progress.js';
import { invalidParams } from './protocol.js';
import {
  completeTemplateVariable,
  listResourcesPage,
  readResource,
  resourceListEntry,
  resourceTemplates,
} from './resources.js';
import { stillStartingError, waitForStartUp, type StartUpGate } from './start-up-gate.js';
import { callTool, type PreparedTool, type toolListEntry } from './tools.js';

export type IndexedExtension = ReturnType<typeof indexExtension>;
export type ToolListEntry =
  ReturnType<typeof toolListEntry> | IndexedExtension['toolEntries'][number];

/** What one server instance answers from: the gateway's registry, and its caller and era. */
export interface Connection {
  readonly tools: ReadonlyMap<string, PreparedTool>;
  // Mutable only because the SDK's result type is: one list, shared by every server.
  readonly toolList: ToolListEntry[];
  readonly extension: IndexedExtension;
  readonly services: GatewayServices;
  readonly logger: Logger;
  readonly metrics: GatewayMetrics | undefined;
  readonly serverName: string;
  readonly caller: Caller;
  /** Resources are reads: the access decision for them is the caller's read scope. */
  readonly scope: ReadScope;
  readonly era: Era;
  /** Requests that read the catalog wait for start-up (absent: the process is ready). */
  readonly startUp: StartUpGate | undefined;
}

/** The request's `notifications/progress`, increasing across everything that reports. */
const progressOf = (ctx: ServerContext): ProgressSender => {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  return increasingProgress(async (progress, total, message) => {
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
  });
};

/**
 * Resource reads, lists and completions answer from the catalog: before start-up is done
 * they wait (bounded), then fail with a retryable -32603 rather than answer from part of it.
 */
const untilStarted = async (connection: Connection, ctx: ServerContext): Promise<void> => {
  if (!connection.startUp) return;
  const starting = await waitForStartUp(connection.startUp, ctx.mcpReq.signal, progressOf(ctx));
  if (starting) throw stillStartingError(starting);
};

/**
 * These lists answer in one page, so no cursor can be valid: a client passing one is told so
 * (-32602) rather than silently given the first page again.
 */
const refuseCursor = (method: string, cursor: string | undefined): void => {
  if (cursor !== undefined)
    throw invalidParams(`Invalid cursor: ${method} answers in one page; call it without a cursor`);
};

/** tools/list and tools/call: the registry's tools, then the extension's. */
export const serveTools = (server: Server, connection: Connection): void => {
  const { tools, extension, services, caller, logger, era } = connection;
  server.setRequestHandler('tools/list', (request) => {
    refuseCursor('tools/list', request.params?.cursor);
    return { tools: connection.toolList };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = tools.get(request.params.name);
    const extra = tool ? undefined : extension.tools.get(request.params.name);
    if (extra) return extra.call(request.params.arguments, { caller, era, ctx });
    // An unknown tool is a protocol error (-32602) on both revisions, not a tool result.
    if (!tool) {
      throw invalidParams(
        `Unknown tool "${request.params.name}"; call tools/list for the ${String(tools.size)} tools available`,
      );
    }
    return callTool(tool, request.params.arguments, {
      services,
      caller,
      logger,
      signal: ctx.mcpReq.signal,
      metrics: connection.metrics,
      startUp: connection.startUp,
      progress: progressOf(ctx),
      log: (level, data) =>
        era === 'legacy' ? ctx.mcpReq.log(level, data, connection.serverName) : Promise.resolve(),
    });
  });
};

/** resources/list, templates, read and completion, within the caller's read scope. */
export const serveResources = (server: Server, connection: Connection): void => {
  const { extension, services, caller, scope, era } = connection;
  server.setRequestHandler('resources/list', async (request, ctx) => {
    await untilStarted(connection, ctx);
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
    const extra = extension.read?.(request.params.uri, { caller, era, ctx });
    if (extra) return extra;
    await untilStarted(connection, ctx);
    // A resource read sees the caller's own writes, as a read tool does (runTool).
    await services.readYourWrites.caughtUp(caller.actor);
    return readResource(services.resources, scope, caller.actor, request.params.uri);
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument, context } = request.params;
    if (ref.type !== 'ref/resource') return { completion: { values: [] } };
    await untilStarted(connection, ctx);
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
};

/** prompts/list and prompts/get: the product's prompts, then the extension's. */
export const servePrompts = (server: Server, { extension, caller, era }: Connection): void => {
  server.setRequestHandler('prompts/list', (request) => {
    refuseCursor('prompts/list', request.params?.cursor);
    const { prompts } = listPrompts();
    return { prompts: [...prompts, ...extension.promptEntries] };
  });
  server.setRequestHandler('prompts/get', (request, ctx) => {
    const extra = extension.prompts.get(request.params.name);
    if (extra) return extra.get(request.params.arguments, { caller, era, ctx });
    return getPrompt(request.params.name, request.params.arguments);
  });
};
