import { runTool, type Caller, type ToolDefinition } from '../registry.js';
import type { GatewayServices } from '../services.js';

/**
 * The console's one way to read: the MCP tools themselves, through `runTool` (the same access
 * decision, read scope, validation and output check as an MCP call). A person logged in with
 * a token therefore sees exactly what that token sees over MCP; there is no console query.
 */
export type ToolReader = (
  caller: Caller,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

export const createToolReader = (
  services: GatewayServices,
  tools: readonly ToolDefinition[],
): ToolReader => {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (caller, name, args, signal) => {
    const tool = byName.get(name);
    if (!tool) throw new Error(`the console reads through ${name}, which is not registered`);
    return runTool(tool, args, { services, caller, signal, progress: () => Promise.resolve() });
  };
};
