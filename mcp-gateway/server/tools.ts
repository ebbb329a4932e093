import { randomUUID } from 'node:crypto';
import type { Logger } from '../../services/runtime/logger.js';
import { mapDatabaseError } from '../../services/database/transient.js';
import { isCogitaveError } from '../../services/runtime/errors.js';
import type { Caller, ToolContext, ToolDefinition } from '../registry.js';
import type { GatewayServices } from '../services.js';
import { mayUseAccess, scopeForAccess } from './grants.js';
import { toolIcons, type IconEntry } from './icons.js';
import { describeValidationError, toJsonSchema, type ObjectJsonSchema } from './schemas.js';

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
}

const errorText = (text: string): ToolCallResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

const describePath = (path: readonly (string | number)[]): string =>
  path.length === 0
    ? '(arguments)'
    : path
        .map((key, i) => (typeof key === 'number' ? `[${String(key)}]` : i === 0 ? key : `.${key}`))
        .join('');

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const textProblem = (text: string): string | undefined =>
  text.includes('\u0000')
    ? 'contains the NUL character (U+0000), which cannot be stored; remove it'
    : LONE_SURROGATE.test(text)
      ? 'contains an unpaired UTF-16 surrogate (not valid Unicode); send well-formed text'
      : undefined;

/**
 * Why a string in the arguments (a value or a field name) cannot be stored, or undefined.
 * Postgres text and jsonb refuse U+0000 and jsonb refuses unpaired surrogates, so such a
 * string could only fail deep in a handler as an internal error: it is refused up front,
 * naming the field.
 */
export const findUnstorableText = (
  value: unknown,
  path: (string | number)[] = [],
): string | undefined => {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === undefined ? undefined : `${describePath(path)}: ${problem}`;
  }
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? [...value.entries()]
    : typeof value === 'object' && value !== null
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    const keyProblem = typeof key === 'string' ? textProblem(key) : undefined;
    if (keyProblem !== undefined) return `${describePath(path)}: a field name ${keyProblem}`;
    const problem = findUnstorableText(item, [...path, key]);
    if (problem !== undefined) return problem;
  }
  return undefined;
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
  const { definition } = tool;
  if (!mayUseAccess(env.caller.grants, definition.access)) {
    return errorText(
      `PERMISSION_DENIED: ${definition.name} needs the "${scopeForAccess(definition.access)}" grant, which ${env.caller.actor} does not have; ask an operator for a token that grants it, or use the read-only tools`,
    );
  }
  const unstorable = findUnstorableText(rawArgs);
  if (unstorable !== undefined) {
    return errorText(`INVALID_ARGUMENT: Invalid arguments for ${definition.name}: ${unstorable}`);
  }
  const parsed = definition.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    return errorText(
      `INVALID_ARGUMENT: ${describeValidationError(definition.name, parsed.error, tool.fields)}`,
    );
  }
  try {
    const result = await definition.handler(parsed.data, {
      services: env.services,
      caller: env.caller,
      signal: env.signal,
      progress: env.progress,
      now: () => new Date(),
      newId: randomUUID,
    });
    const checked = definition.output.safeParse(result);
    if (!checked.success) {
      throw new Error(
        `${definition.name} returned a result outside its output schema: ${checked.error.message}`,
      );
    }
    const structured: Record<string, unknown> = checked.data;
    return {
      content: [{ type: 'text', text: definition.render(checked.data) }],
      structuredContent: structured,
    };
  } catch (caught) {
    // A database outage is the caller's to retry (UNAVAILABLE), not an internal error.
    const error = mapDatabaseError(caught);
    if (isCogitaveError(error)) {
      const text = `${error.code}: ${error.message}`;
      if (definition.errorResult) {
        try {
          const structured: Record<string, unknown> = definition.errorResult(error, parsed.data);
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
    return errorText(
      `internal error (correlation id ${correlationId}); the operator can find it in the server log`,
    );
  }
};
