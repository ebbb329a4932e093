import type { z } from 'zod';
import type { CogitaveError } from '../services/runtime/errors.js';
import type { GatewayServices } from './services.js';

/**
 * Our own, SDK-agnostic tool registry. One file per tool under `tools/` exports a
 * `ToolDefinition`; `tools/index.ts` lists them. The MCP server (both protocol revisions), the
 * read-only REST surface with its OpenAPI document and `/llms.txt` are all generated from this
 * list, so humans and agents read the same data.
 */

/** What a caller may do; bearer tokens map to one (the local no-auth mode grants everything). */
export interface Grants {
  /** Products whose nodes/requests it may read; `'*'` for all. */
  readonly products: readonly string[] | '*';
  /** Resource types (`doc`, `request`, `network`, ...) it may read; `'*'` for all. */
  readonly types: readonly string[] | '*';
  /** May call `request_intake` / `advance_stage`. */
  readonly propose: boolean;
  /** May create networks and add nodes/edges to them. */
  readonly writeNetworks: boolean;
}

export interface Caller {
  /** Recorded as the `actor` of any event a call appends (e.g. `token:ci-bot`, `local`). */
  readonly actor: string;
  readonly grants: Grants;
}

/**
 * - `read`: reads only; also served by the REST surface.
 * - `propose`: appends proposal events (needs `grants.propose`).
 * - `network-write`: appends network events (needs `grants.writeNetworks`).
 */
export type ToolAccess = 'read' | 'propose' | 'network-write';

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
  /** Aborted when the client cancels or disconnects. */
  readonly signal: AbortSignal;
  /** Progress for long calls; a no-op when the client sent no progress token. */
  readonly progress: (progress: number, total?: number, message?: string) => Promise<void>;
  /** Clock and ids come from here, so handlers stay testable. */
  readonly now: () => Date;
  readonly newId: () => string;
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
