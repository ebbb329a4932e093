import type { z } from 'zod';
import { CogitaveError, InvalidArgument, isCogitaveError } from '../../services/runtime/errors.js';
import type { Caller, ToolContext, ToolDefinition } from '../registry.js';
import { mayUseAccess, scopeForAccess } from '../server/grants.js';
import { describeValidationError } from '../server/schemas.js';

/**
 * Running a tool outside MCP, for the REST surface: the same steps, grant rules and messages
 * as the MCP server's `callTool` (server/tools.ts) — check the caller's grants for the tool's
 * access, parse the arguments with the tool's input schema, run the handler — with every
 * failure a `CogitaveError`, whose code picks the problem's HTTP status.
 */

/** Arguments parsed by the tool's input schema; the message is the one MCP tool errors carry. */
export const parseToolArguments = (tool: ToolDefinition, args: unknown): unknown => {
  const parsed = tool.input.safeParse(args ?? {});
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

/** The caller's grants must allow the tool's kind of access at all (reads are always allowed). */
export const assertToolAccess = (tool: ToolDefinition, caller: Caller): void => {
  if (!mayUseAccess(caller.grants, tool.access)) {
    throw new CogitaveError(
      'PERMISSION_DENIED',
      `${tool.name} needs the "${scopeForAccess(tool.access)}" grant, which ${caller.actor} does not have; ask an operator for a token that grants it, or use the read-only tools.`,
    );
  }
};

/** Anything thrown by a handler, as a coded error (unknown failures are INTERNAL). */
export const toCogitaveError = (error: unknown): CogitaveError =>
  isCogitaveError(error)
    ? error
    : new CogitaveError(
        'INTERNAL',
        'The tool failed unexpectedly; see the server log.',
        {},
        {
          cause: error,
        },
      );

/** The structured result, checked against the output schema as MCP's structuredContent is. */
export const invokeTool = async (
  tool: ToolDefinition,
  args: unknown,
  context: ToolContext,
): Promise<unknown> => {
  assertToolAccess(tool, context.caller);
  const parsed = parseToolArguments(tool, args);
  const result = await tool.handler(parsed as z.infer<typeof tool.input>, context);
  const checked = tool.output.safeParse(result);
  if (!checked.success) {
    throw new CogitaveError(
      'INTERNAL',
      `${tool.name} returned a result outside its output schema`,
      {},
      {
        cause: checked.error,
      },
    );
  }
  return checked.data;
};
