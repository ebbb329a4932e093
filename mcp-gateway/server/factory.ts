/* eslint-disable @typescript-eslint/no-deprecated --
 * The low-level Server on purpose: tools/list carries our own 2020-12 schemas, tools/call our
 * own validation messages and grants, resources/list our cursor pagination; logging/setLevel
 * and notifications/message stay served on 2025-11-25 while that revision is supported. */
import type { Server } from '@modelcontextprotocol/server';
import type { Logger } from '../../services/runtime/logger.js';
import type { Caller, ToolDefinition } from '../registry.js';
import type { GatewayMetrics } from '../metrics.js';
import type { GatewayServices } from '../services.js';
import { readScopeOf } from '../../services/access/grants.js';
import { indexExtension, type GatewayExtension } from './extension.js';
import { followChanges } from './follow.js';
import { serveTools, servePrompts, serveResources, type Connection } from './handlers.js';
import { SERVER_ICON } from './icons.js';
import { serverInstructions } from './instructions.js';
import { PROMPT_NAMES } from './prompts.js';
import { GatewayServer } from './protocol.js';
import { DEFAULT_START_UP_WAIT_MS } from './start-up-gate.js';
import type { StartUp } from '../start-up.js';
import { subscriptionProblem } from './resources.js';
import { prepareTools, toolListEntry, type PreparedTool } from './tools.js';

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
  /**
   * The process's start-up: tool calls, resource reads and lists wait for it (bounded by
   * `startUpWaitMs`, 20 s by default). Absent: the catalog is ready when the gateway is built.
   */
  readonly startUp?: StartUp;
  readonly startUpWaitMs?: number;
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

/**
 * The gateway: the registry's tools prepared once, and a server per caller (per connection on
 * 2025-11-25 and stdio, per request on 2026-07-28 over HTTP) whose handlers (handlers.ts)
 * answer within that caller's grants; a connection-scoped server follows the change feed
 * itself (follow.ts).
 */
export const createMcpGateway = (options: McpGatewayOptions): McpGateway => {
  const { services, logger } = options;
  const tools = prepareTools(options.tools);
  const extension = indexExtension(options.extension, new Set(tools.keys()), PROMPT_NAMES);
  const toolList = [...[...tools.values()].map(toolListEntry), ...extension.toolEntries];
  const startUp = options.startUp
    ? { state: options.startUp, waitMs: options.startUpWaitMs ?? DEFAULT_START_UP_WAIT_MS }
    : undefined;

  const createServer = (caller: Caller, serverOptions: CreateServerOptions): Server => {
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
    const connection: Connection = {
      tools,
      toolList,
      extension,
      services,
      logger,
      metrics: options.metrics,
      serverName: SERVER_NAME,
      caller,
      scope: readScopeOf(caller.grants),
      era: serverOptions.era,
      startUp,
    };
    serveTools(server, connection);
    serveResources(server, connection);
    servePrompts(server, connection);
    if (serverOptions.follow === true) followChanges(server, connection);
    return server;
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
