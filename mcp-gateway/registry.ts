import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  ALL_GRANTS,
  accessDenied,
  decideAccess,
  type Access,
  type Grants,
  type ReadScope,
} from '../services/access/grants.js';
import type { Position } from '../services/event-store/types.js';
import { CogitaveError, InvalidArgument } from '../services/runtime/errors.js';
import { exceedsDepth, MAX_ARGUMENT_DEPTH } from './server/depth.js';
import { describeValidationError } from './server/schemas.js';
import type { GatewayServices } from './services.js';

/**
 * Our own, SDK-agnostic tool registry. One file per tool under `tools/` exports a
 * `ToolDefinition`; `tools/index.ts` lists them. The MCP server (both protocol revisions), the
 * read-only REST surface with its OpenAPI document and `/llms.txt` are all generated from this
 * list, so humans and agents read the same data. Every call, from any surface, runs through
 * `runTool`: one access decision (`services/access/grants.ts`), then validation, then the
 * handler with the caller's read scope.
 */

export type { Grants };

export interface Caller {
  /** Recorded as the `actor` of any event a call appends (e.g. `token:ci-bot`, `local`). */
  readonly actor: string;
  readonly grants: Grants;
}

/** The local no-auth mode (stdio, or HTTP on loopback without tokens): everything, as `local`. */
export const LOCAL_CALLER: Caller = { actor: 'local', grants: ALL_GRANTS };

/** See `Access` in services/access/grants.ts: `read`, `propose`, `network-write`. */
export type ToolAccess = Access;

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** The annotations of a tool that only reads the read model (most of them). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * The annotations of a tool that appends (a proposal, a network change) and never removes or
 * overwrites: `idempotent` when the same call again changes nothing more, `openWorld` when it
 * reaches outside (GitHub).
 */
export const appendOnly = (hints: {
  readonly idempotent: boolean;
  readonly openWorld: boolean;
}): ToolAnnotations => ({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: hints.idempotent,
  openWorldHint: hints.openWorld,
});

export interface ToolContext {
  readonly services: GatewayServices;
  readonly caller: Caller;
  /** What this call may read: pass it to every read service (each requires it). */
  readonly scope: ReadScope;
  /** Aborted when the client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** Progress for long calls; a no-op when the client sent no progress token. */
  readonly progress: (progress: number, total?: number, message?: string) => Promise<void>;
  /** Clock and ids come from here, so handlers stay testable. */
  readonly now: () => Date;
  readonly newId: () => string;
  /**
   * A writing tool records where its events landed (`position`, applied by `projection`):
   * the caller's next read waits until the read model shows them (read-your-writes).
   */
  readonly recordWrite: (projection: string, position: Position) => void;
}

export interface ToolDefinition<
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodObject = z.ZodObject,
> {
  /** snake_case, as MCP clients show it. */
  readonly name: string;
  readonly title: string;
  /** What it does, when to call it, what it returns; models read this. */
  readonly description: string;
  readonly input: Input;
  readonly output: Output;
  readonly annotations: ToolAnnotations;
  readonly access: ToolAccess;
  /** An SVG data URI (or https URL) shown by clients that render icons. */
  readonly icon?: string;
  /**
   * Returns the structured result. Bad input, unknown ids, refused transitions, bound
   * violations: throw a `CogitaveError` (it becomes `isError: true` with its message); anything
   * else is an internal error.
   */
  readonly handler: (args: z.infer<Input>, context: ToolContext) => Promise<z.infer<Output>>;
  /**
   * For tools whose output schema carries its own error shape (the `network_*` tools answer
   * `{status: 'error', error}`): builds that result from a thrown `CogitaveError`; the gateway
   * sends it as `structuredContent` with `isError: true`. Without it an error result carries
   * the message as text only.
   */
  readonly errorResult?: (error: CogitaveError, args: unknown) => z.infer<Output>;
  /** Readable text rendering of the structured result (the `text` content beside it). */
  readonly render: (result: z.infer<Output>) => string;
}

/** Keeps each tool file's generic parameters inferred while the list stays homogeneous. */
export const defineTool = <Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition => definition;

/** What a surface hands `runTool`: the caller and the call's plumbing; the scope is decided here. */
export type ToolCallContext = Omit<ToolContext, 'scope' | 'now' | 'newId' | 'recordWrite'> &
  Partial<Pick<ToolContext, 'now' | 'newId'>>;

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

/** A read still waiting for the caller's writes after this long reports progress. */
const READ_WAIT_PROGRESS_MS = 1000;

/** Arguments parsed by the tool's input schema, or INVALID_ARGUMENT naming every bad field. */
export const parseToolArguments = (tool: ToolDefinition, rawArgs: unknown): unknown => {
  // Before any recursive walk (the text check, the schema) could overflow the stack.
  if (exceedsDepth(rawArgs, MAX_ARGUMENT_DEPTH)) {
    throw new InvalidArgument(
      `Invalid arguments for ${tool.name}: nested deeper than ${String(MAX_ARGUMENT_DEPTH)} levels`,
    );
  }
  const unstorable = findUnstorableText(rawArgs);
  if (unstorable !== undefined) {
    throw new InvalidArgument(`Invalid arguments for ${tool.name}: ${unstorable}`);
  }
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (parsed.success) return parsed.data;
  throw new InvalidArgument(
    describeValidationError(tool.name, parsed.error, Object.keys(tool.input.shape)),
    {
      issues: parsed.error.issues.map((issue) => ({
        path: issue.path.map(String).join('.'),
        message: issue.message,
      })),
    },
  );
};

/**
 * One tool call, whichever surface it came from (MCP on either revision, REST): the access
 * decision, argument validation, the handler in the caller's read scope, and the output schema
 * check. Refusals throw `CogitaveError`s (PERMISSION_DENIED, INVALID_ARGUMENT, the handler's
 * own); a result outside the output schema is INTERNAL. `onParsed` sees the parsed arguments
 * (the MCP surface shapes `errorResult`s from them).
 */
export const runTool = async (
  tool: ToolDefinition,
  rawArgs: unknown,
  context: ToolCallContext,
  onParsed?: (args: unknown) => void,
): Promise<Record<string, unknown>> => {
  const decision = decideAccess(context.caller.grants, tool.access);
  if (!decision.allowed) throw accessDenied(decision, tool.name, context.caller.actor);
  const args = parseToolArguments(tool, rawArgs);
  onParsed?.(args);
  const { services, caller } = context;
  // A read sees the caller's own writes: this is the one place every read tool passes. A wait
  // longer than a moment is told to a client that asked for progress.
  if (tool.access === 'read') {
    const slow = setTimeout(() => {
      context.progress(0, 1, 'waiting for the read model to show your last write').catch(() => {
        // Progress is advice; a closed stream must not fail the call.
      });
    }, READ_WAIT_PROGRESS_MS);
    try {
      await services.readYourWrites.caughtUp(caller.actor);
    } finally {
      clearTimeout(slow);
    }
  }
  const result = await tool.handler(args as z.infer<typeof tool.input>, {
    ...context,
    scope: decision.scope,
    now: context.now ?? (() => new Date()),
    newId: context.newId ?? randomUUID,
    recordWrite: (projection, position) => {
      services.readYourWrites.wrote(caller.actor, projection, position);
    },
  });
  const checked = tool.output.safeParse(result);
  if (!checked.success) {
    throw new CogitaveError(
      'INTERNAL',
      `${tool.name} returned a result outside its output schema: ${checked.error.message}`,
      {},
      { cause: checked.error },
    );
  }
  return checked.data;
};
