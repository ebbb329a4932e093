import { describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../../mcp-gateway/registry.js';
import { toJsonSchema } from '../../../mcp-gateway/server/schemas.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';

/**
 * Every tool refuses argument names it does not know, the same way: a misspelt `limit` or a
 * field of another tool must be an error that lists the known names, never silently ignored.
 */
describe('tool inputs', () => {
  it.each(ALL_TOOLS.map((tool) => [tool.name, tool] as const))(
    'given %s called with an unknown argument, when parsed, then the call is refused naming it and the known ones',
    (name, tool) => {
      const known = Object.keys(tool.input.shape);
      expect(() => parseToolArguments(tool, { max_results: 5 })).toThrow(
        new RegExp(`Invalid arguments for ${name}: .*max_results`),
      );
      for (const field of known) {
        expect(() => parseToolArguments(tool, { max_results: 5 })).toThrow(field);
      }
      expect(toJsonSchema(tool.input, 'input').additionalProperties).toBe(false);
    },
  );
});
