import { decideAccess } from '../../services/access/grants.js';
import type { ResourceEntry } from '../../services/resources/read-service.js';
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

/**
 * Browsing the knowledge graph without a query: the resource index MCP's `resources/list`
 * reads, in the caller's read scope as the registry decides it.
 */
export type ResourceBrowser = (
  caller: Caller,
  filter: { readonly type?: string | undefined; readonly product?: string | undefined },
) => Promise<readonly ResourceEntry[]>;

/** Entries listed on one browse page. */
export const BROWSE_LIMIT = 100;

export const createResourceBrowser = (services: GatewayServices): ResourceBrowser => {
  return async (caller, filter) => {
    const decision = decideAccess(caller.grants, 'read');
    if (!decision.allowed) return [];
    return services.resources.list(decision.scope, { ...filter, limit: BROWSE_LIMIT + 1 });
  };
};
