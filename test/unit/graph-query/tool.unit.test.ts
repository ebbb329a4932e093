import { describe, expect, it } from 'vitest';
import type { ToolContext } from '../../../mcp-gateway/registry.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { queryGraphTool } from '../../../mcp-gateway/tools/query-graph.js';
import type { GraphQueryResult } from '../../../services/graph-query/service.js';

const RESULT = {
  columns: ['u', 'minutes'],
  rows: [
    { u: { uid: 'u1', label: 'Unit', title: 'Intro', uri: 'cogitave://unit/u1' }, minutes: 10 },
  ],
  truncated: true,
  rowCount: 1,
  elapsedMs: 3.5,
} satisfies GraphQueryResult;

describe('the query_graph tool', () => {
  it('is registered, read-only and idempotent', () => {
    expect(ALL_TOOLS).toContain(queryGraphTool);
    expect(queryGraphTool).toMatchObject({
      name: 'query_graph',
      access: 'read',
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false },
    });
  });

  it('states the subset, the bounds and an example', () => {
    const text = queryGraphTool.description;
    for (const words of ['MATCH', '*1..4', 'LIMIT ≤ 1000', 'truncated', 'timeout', 'Example:']) {
      expect(text).toContain(words);
    }
    expect(text).toContain('LearningPath');
    expect(text).toContain('prerequisiteOf');
  });

  it('given object parameters, when the input is validated, then it is refused', () => {
    expect(queryGraphTool.input.safeParse({ query: 'MATCH (a) RETURN a' }).success).toBe(true);
    expect(
      queryGraphTool.input.safeParse({ query: 'MATCH (a) RETURN a', params: { a: { b: 1 } } })
        .success,
    ).toBe(false);
    expect(queryGraphTool.input.safeParse({ query: '' }).success).toBe(false);
  });

  it('given a call, when handled, then the graph query service answers it in the caller scope', async () => {
    const calls: unknown[] = [];
    const services = {
      graphQuery: {
        run: (scope: unknown, query: string, params: unknown) => {
          calls.push([scope, query, params]);
          return Promise.resolve(RESULT);
        },
      },
    } as unknown as GatewayServices;
    const scope = { types: ['unit'], products: ['core'] };
    const context = { services, scope } as unknown as ToolContext;
    const result = await queryGraphTool.handler({ query: 'MATCH (u:Unit) RETURN u' }, context);
    expect(result).toEqual(RESULT);
    expect(calls).toEqual([[scope, 'MATCH (u:Unit) RETURN u', {}]]);
    expect(queryGraphTool.output.safeParse(result).success).toBe(true);
  });

  it('renders rows with nodes as (uid:Label) and says when the result was truncated', () => {
    const text = queryGraphTool.render(RESULT);
    expect(text).toContain('1 row (truncated');
    expect(text).toContain('u: (u1:Unit) | minutes: 10');
  });
});
