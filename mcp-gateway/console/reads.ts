import { readScopeOf } from '../../services/access/grants.js';
import { runTool, type Caller, type ToolDefinition } from '../registry.js';
import { LIST_FILTER_META_KEY, listResourcesPage, type ResourcePage } from '../server/resources.js';
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
 * Browsing the index: one page of `resources/list` as the MCP handler answers it (the same
 * function, the caller's read scope, the index's keyset on URIs).
 */
export type ResourceBrowser = (
  caller: Caller,
  filter: { readonly type?: string | undefined; readonly product?: string | undefined },
  cursor: string | undefined,
) => Promise<ResourcePage>;

export const createResourceBrowser =
  (services: GatewayServices): ResourceBrowser =>
  (caller, filter, cursor) =>
    listResourcesPage(
      services.resources,
      readScopeOf(caller.grants),
      cursor === undefined ? { _meta: { [LIST_FILTER_META_KEY]: { ...filter } } } : { cursor },
    );
