import type { ToolDefinition } from '../registry.js';

/**
 * Every tool the gateway serves, in the order `tools/list` shows them. Each lives in its own
 * file; add the new one here (see CONTRIBUTING.md, "Add a tool").
 */
export const ALL_TOOLS: readonly ToolDefinition[] = [];
