import { randomUUID } from 'node:crypto';
import type { Logger } from '../../services/runtime/logger.js';
import { mapDatabaseError } from '../../services/database/transient.js';
import { decideAccess } from '../../services/access/grants.js';
import { isCogitaveError } from '../../services/runtime/errors.js';
import { logToolRefusal } from '../activity.js';
import {
  parseToolArguments,
  runTool,
  type Caller,
  type ToolContext,
  type ToolDefinition,
} from '../registry.js';
import type { GatewayMetrics, ToolOutcome } from '../metrics.js';
import type { GatewayServices } from '../services.js';
import { toolIcons, type IconEntry } from './icons.js';
import { stillStartingToolResult, waitForStartUp, type StartUpGate } from './start-up-gate.js';
import { toJsonSchema, type ObjectJsonSchema } from './schemas.js';

/** A registry tool with its JSON Schemas computed once per process, not per request. */
export interface PreparedTool {
  readonly definition: ToolDefinition;
  readonly inputSchema: ObjectJsonSchema;
  readonly outputSchema: ObjectJsonSchema;
  readonly icons: IconEntry[] | undefined;
  /** Top-level argument names, listed when a call names an unknown one. */
  readonly fields: readonly string[];
}

export const prepareTools = (tools: readonly ToolDefinition[]): Map<string, PreparedTool> => {
  const prepared = new Map<string, PreparedTool>();
  for (const definition of tools) {
    if (prepared.has(definition.name)) throw new Error(`tool ${definition.name} is listed twice`);
    prepared.set(definition.name, {
      definition,
      inputSchema: toJsonSchema(definition.input, 'input'),
      outputSchema: toJsonSchema(definition.output, 'output'),
      icons: toolIcons(definition.icon),
      fields: Object.keys(definition.input.shape),
    });
  }
  return prepared;
};

/** The `tools/list` entry. */
export const toolListEntry = (tool: PreparedTool) => ({
  name: tool.definition.name,
  title: tool.definition.title,
  description: tool.definition.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
  annotations: { title: tool.definition.title, ...tool.definition.annotations },
  ...(tool.icons ? { icons: tool.icons } : {}),
});

export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolCallEnvironment {
  readonly services: GatewayServices;
  readonly caller: Caller;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly progress: ToolContext['progress'];
  /** Sends a `notifications/message` to the client (respects `logging/setLevel`). */
  readonly log: (level: 'warning' | 'error', data: unknown) => Promise<void>;
  /** Counts the call by outcome and times it, for /metrics. */
  readonly metrics?: GatewayMetrics | undefined;
  /** Every tool waits for start-up (absent: the process is ready). */
  readonly startUp?: StartUpGate | undefined;
}

const errorText = (text: string): ToolCallResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/**
 * A call the registry would refuse whatever the catalog holds (no grant, bad arguments) is
 * answered at once, not after the start-up wait.
 */
const refusedAnyway = (tool: PreparedTool, rawArgs: unknown, caller: Caller): boolean => {
  if (!decideAccess(caller.grants, tool.definition.access).allowed) return true;
  try {
    parseToolArguments(tool.definition, rawArgs);
    return false;
  } catch {
    return true;
  }
};

/**
 * Runs one tool call and always answers with a result: bad arguments, refused commands and
 * missing grants are tool errors the model can act on (`isError: true`); a failure of ours is
 * an "internal error" with a correlation id that is in the server log. Never a protocol error.
 */
export const callTool = async (
  tool: PreparedTool,
  rawArgs: unknown,
  env: ToolCallEnvironment,
): Promise<ToolCallResult> => {
  const started = performance.now();
  let outcome: ToolOutcome = 'ok';
  try {
    // Every tool waits for start-up: the catalog's readers must not answer from part of it,
    // and one rule for all is the one a client can rely on.
    if (env.startUp && !env.startUp.state.isReady() && !refusedAnyway(tool, rawArgs, env.caller)) {
      const starting = await waitForStartUp(env.startUp, env.signal, env.progress);
      if (starting) {
        outcome = 'tool_error';
        return stillStartingToolResult(starting);
      }
    }
    const result = await answerToolCall(tool, rawArgs, env);
    if (result.isError === true)
      outcome = result.internal === true ? 'internal_error' : 'tool_error';
    if (result.internal === true) delete result.internal;
    return result;
  } finally {
    env.metrics?.toolCall(tool.definition.name, outcome, (performance.now() - started) / 1000);
  }
};

const answerToolCall = async (
  tool: PreparedTool,
  rawArgs: unknown,
  env: ToolCallEnvironment,
): Promise<ToolCallResult & { internal?: boolean }> => {
  const { definition } = tool;
  let parsedArgs: unknown;
  try {
    const result = await runTool(
      definition,
      rawArgs,
      { services: env.services, caller: env.caller, signal: env.signal, progress: env.progress },
      (args) => {
        parsedArgs = args;
      },
    );
    return {
      content: [{ type: 'text', text: definition.render(result) }],
      structuredContent: result,
    };
  } catch (caught) {
    // A database outage is the caller's to retry (UNAVAILABLE), not an internal error.
    const error = mapDatabaseError(caught);
    if (isCogitaveError(error) && error.code !== 'INTERNAL') {
      logToolRefusal(env.logger, definition.name, env.caller, error, parsedArgs ?? rawArgs);
      const text = `${error.code}: ${error.message}`;
      // Only a handler's refusal has the tool's own error shape (the arguments were valid).
      if (definition.errorResult && parsedArgs !== undefined) {
        try {
          const structured: Record<string, unknown> = definition.errorResult(error, parsedArgs);
          return {
            content: [{ type: 'text', text }],
            structuredContent: structured,
            isError: true,
          };
        } catch (shapeError) {
          env.logger.warn({ err: shapeError, tool: definition.name }, 'errorResult failed');
        }
      }
      return errorText(text);
    }
    const correlationId = randomUUID();
    env.logger.error(
      { err: error, tool: definition.name, correlationId, actor: env.caller.actor },
      'tool call failed',
    );
    await env.log('error', { tool: definition.name, correlationId }).catch(() => undefined);
    return {
      ...errorText(
        `internal error (correlation id ${correlationId}); the operator can find it in the server log`,
      ),
      internal: true,
    };
  }
};
