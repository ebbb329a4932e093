import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryGraphTool } from '../../../mcp-gateway/tools/query-graph.js';
import { requestIntakeTool } from '../../../mcp-gateway/tools/request-intake.js';
import { runTool } from '../../../mcp-gateway/registry.js';
import { Cancelled } from '../../../services/database/cancel.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { intakeArgs, openGatewayBed, type GatewayBed } from '../gateway-tools/harness.js';

/** query_graph as the composition root wires it: real App, projections running. */
let bed: GatewayBed;

beforeAll(async () => {
  bed = await openGatewayBed('graph_query_gateway');
});

afterAll(async () => {
  await bed.close();
});

describe('query_graph in the composed gateway', () => {
  it('given a proposed request, when the projection caught up, then it is a Request node of the graph', async () => {
    const intake = await bed.call(requestIntakeTool, intakeArgs('Graph visible request'));
    const requestId = intake.request_id as string;
    await bed.caughtUp();
    const result = await bed.call(queryGraphTool, {
      query:
        'MATCH (r:Request) WHERE r.title = $title RETURN r, r.stage AS stage, r.status AS status',
      params: { title: 'Graph visible request' },
    });
    expect(result).toMatchObject({
      columns: ['r', 'stage', 'status'],
      rows: [
        {
          r: {
            uid: requestId,
            label: 'Request',
            title: 'Graph visible request',
            uri: `cogitave://request/${requestId}`,
          },
          stage: 'proposed',
          status: 'draft',
        },
      ],
      truncated: false,
      rowCount: 1,
    });
  });

  it('given a bound violated, when called, then the tool answers a coded error naming it', async () => {
    const call = bed.call(queryGraphTool, { query: 'MATCH (r:Request) RETURN r LIMIT 5000' });
    await expect(call).rejects.toBeInstanceOf(CogitaveError);
    await expect(call).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { bound: 'limit' },
    });
  });

  it('given a progress callback, when a query runs, then each step is reported up to its total', async () => {
    const steps: [number, number | undefined][] = [];
    await runTool(
      queryGraphTool,
      { query: 'MATCH (r:Request) RETURN count(*) AS n' },
      {
        ...bed.context(),
        progress: (progress, total) => {
          steps.push([progress, total]);
          return Promise.resolve();
        },
      },
    );
    expect(steps).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('given the caller cancelled, when the query would run, then it is refused as cancelled and runs nothing', async () => {
    const call = runTool(
      queryGraphTool,
      { query: 'MATCH (r:Request) RETURN r LIMIT 5' },
      { ...bed.context(), signal: AbortSignal.abort() },
    );
    await expect(call).rejects.toBeInstanceOf(Cancelled);
  });
});
