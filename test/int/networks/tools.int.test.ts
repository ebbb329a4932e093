import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTool, type Caller, type ToolDefinition } from '../../../mcp-gateway/registry.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import { networkAddEdgeTool } from '../../../mcp-gateway/tools/network-add-edge.js';
import { networkAddEdgesTool } from '../../../mcp-gateway/tools/network-add-edges.js';
import { networkAddNodeTool } from '../../../mcp-gateway/tools/network-add-node.js';
import { networkAddNodesTool } from '../../../mcp-gateway/tools/network-add-nodes.js';
import { networkCreateTool } from '../../../mcp-gateway/tools/network-create.js';
import { networkGetNeighborsTool } from '../../../mcp-gateway/tools/network-get-neighbors.js';
import { networkListTool } from '../../../mcp-gateway/tools/network-list.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { callTool, prepareTools } from '../../../mcp-gateway/server/tools.js';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import { silentLogger } from '../projections/support/fixtures.js';
import { openNetworksBed, type NetworksBed } from './support.js';
import { IGNORE_WRITES } from '../../support/read-your-writes.js';

/**
 * The `network_*` tools through their registry definitions, as the gateway runs them: input
 * parsed by the tool's schema, the handler, the output checked by the output schema, and a
 * thrown CogitaveError shaped by `errorResult` into `{status: 'error', error}`.
 */
let nb: NetworksBed;
let services: GatewayServices;

const writer: Caller = {
  actor: 'token:builder',
  grants: { products: '*', types: '*', propose: false, writeNetworks: true },
};
const reader: Caller = {
  actor: 'token:reader',
  grants: { products: '*', types: ['network'], propose: false, writeNetworks: false },
};

interface Called {
  readonly isError: boolean;
  readonly result: Record<string, unknown>;
  readonly text: string;
}

const call = async (tool: ToolDefinition, args: unknown, caller = writer): Promise<Called> => {
  const parsed = tool.input.parse(args);
  try {
    const result = tool.output.parse(
      await runTool(tool, parsed, {
        services,
        caller,
        signal: new AbortController().signal,
        progress: () => Promise.resolve(),
        now: () => new Date('2026-11-30T10:00:00.000Z'),
        newId: randomUUID,
      }),
    );
    return { isError: false, result, text: tool.render(result) };
  } catch (error) {
    if (!isCogitaveError(error) || !tool.errorResult) throw error;
    const result = tool.output.parse(tool.errorResult(error, parsed));
    return { isError: true, result, text: `${error.code}: ${error.message}` };
  }
};

beforeAll(async () => {
  nb = await openNetworksBed('network_tools');
  // Only what the network tools use; the gateway's composition root builds the rest.
  services = { networks: nb.service, readYourWrites: IGNORE_WRITES } as Pick<
    GatewayServices,
    'networks' | 'readYourWrites'
  > as GatewayServices;
});

afterAll(async () => {
  await nb.close();
});

describe('network tools', () => {
  it('are registered with the annotations and access the seed implies', () => {
    const names = ALL_TOOLS.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'network_create',
        'network_list',
        'network_get_neighbors',
        'network_add_node',
        'network_add_edge',
      ]),
    );
    expect(networkGetNeighborsTool.annotations).toMatchObject({
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(networkListTool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(networkAddNodeTool.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: false,
    });
    expect(networkAddEdgeTool.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
    });
    expect(networkCreateTool.annotations.idempotentHint).toBe(true);
    expect([networkGetNeighborsTool.access, networkListTool.access]).toEqual(['read', 'read']);
    expect(
      [networkCreateTool, networkAddNodeTool, networkAddEdgeTool].map((tool) => tool.access),
    ).toEqual(['network-write', 'network-write', 'network-write']);
  });

  it('have input and output schemas with exactly the seed fields (plus error)', () => {
    const keys = (schema: z.ZodObject) => Object.keys(schema.shape).sort();
    expect(keys(networkGetNeighborsTool.input)).toEqual(['network_name', 'node_id']);
    expect(keys(networkGetNeighborsTool.output)).toEqual([
      'count',
      'error',
      'neighbors',
      'node_id',
      'status',
    ]);
    expect(keys(networkAddNodeTool.input)).toEqual([
      'attributes',
      'data',
      'network_name',
      'node_id',
    ]);
    expect(keys(networkAddNodeTool.output)).toEqual(['error', 'message', 'node_id', 'status']);
    expect(keys(networkAddEdgeTool.input)).toEqual([
      'attributes',
      'network_name',
      'source',
      'target',
      'weight',
    ]);
    expect(keys(networkAddEdgeTool.output)).toEqual([
      'error',
      'source',
      'status',
      'target',
      'weight',
    ]);
    for (const tool of [
      networkCreateTool,
      networkListTool,
      networkGetNeighborsTool,
      networkAddNodeTool,
      networkAddEdgeTool,
    ]) {
      expect(() => z.toJSONSchema(tool.input, { io: 'input' })).not.toThrow();
      expect(() => z.toJSONSchema(tool.output)).not.toThrow();
    }
  });

  it('build a network and read neighbours, as in the seed examples', async () => {
    expect(
      await call(networkCreateTool, { network_name: 'module_deps', description: 'deps' }),
    ).toMatchObject({
      isError: false,
      result: { status: 'success', network_name: 'module_deps' },
    });
    expect((await call(networkCreateTool, { network_name: 'module_deps' })).result.status).toBe(
      'duplicate',
    );
    const added = await call(networkAddNodeTool, {
      network_name: 'module_deps',
      node_id: 'networks',
      data: 'Core',
      attributes: { layer: 2 },
    });
    expect(added).toEqual({
      isError: false,
      result: { status: 'success', node_id: 'networks', message: "Node 'networks' added" },
      text: "Node 'networks' added",
    });
    expect(
      (await call(networkAddNodeTool, { network_name: 'module_deps', node_id: 'networks' })).result,
    ).toMatchObject({ status: 'duplicate', node_id: 'networks' });
    for (const id of ['agents', 'logging', 'cli']) {
      await call(networkAddNodeTool, { network_name: 'module_deps', node_id: id });
    }
    const edge = {
      network_name: 'module_deps',
      source: 'agents',
      target: 'logging',
      weight: 1.0,
      attributes: { relation: 'depends_on' },
    };
    expect((await call(networkAddEdgeTool, edge)).result).toEqual({
      status: 'success',
      source: 'agents',
      target: 'logging',
      weight: 1,
    });
    await call(networkAddEdgeTool, edge);
    expect(
      (
        await call(networkAddEdgeTool, {
          network_name: 'module_deps',
          source: 'cli',
          target: 'agents',
        })
      ).result.weight,
    ).toBe(1);
    // Read right after the writes, by another caller: the read waits for the latest write.
    const neighbours = await call(
      networkGetNeighborsTool,
      { network_name: 'module_deps', node_id: 'agents' },
      reader,
    );
    expect(neighbours.result).toEqual({
      status: 'success',
      node_id: 'agents',
      neighbors: ['logging', 'cli'],
      count: 2,
    });
    expect(neighbours.text).toBe("'agents' has 2 neighbor(s): logging, cli");
    const events = await nb.networkEvents('NetworkEdgeAdded');
    expect(events).toBe(3);
  });

  it('list networks with counts and page with next_cursor', async () => {
    await call(networkCreateTool, { network_name: 'zz_last' });
    const first = await call(networkListTool, { limit: 1 }, reader);
    expect(first.result).toMatchObject({
      status: 'success',
      networks: [
        {
          network_name: 'module_deps',
          uri: 'cogitave://network/module_deps',
          description: 'deps',
          node_count: 4,
          edge_count: 3,
          created_by: 'token:builder',
          created_at: '2026-11-30T10:00:00.000Z',
        },
      ],
    });
    const cursor = first.result.next_cursor;
    expect(typeof cursor).toBe('string');
    const second = await call(networkListTool, { limit: 1, cursor }, reader);
    expect(second.result).toMatchObject({
      networks: [{ network_name: 'zz_last' }],
      next_cursor: null,
    });
  });

  it('answer errors as {status: "error", error} results', async () => {
    const before = await nb.networkEvents();
    const missingNetwork = await call(networkGetNeighborsTool, {
      network_name: 'nowhere',
      node_id: 'a',
    });
    expect(missingNetwork).toMatchObject({
      isError: true,
      result: { status: 'error', node_id: 'a', neighbors: [], count: 0 },
    });
    expect(missingNetwork.result.error).toMatch(/Network "nowhere" does not exist/);
    const missingNode = await call(networkGetNeighborsTool, {
      network_name: 'module_deps',
      node_id: 'ghost',
    });
    expect(missingNode.result).toMatchObject({ status: 'error', node_id: 'ghost' });
    expect(missingNode.result.error).toMatch(/no node "ghost"/);
    const noNetwork = await call(networkAddNodeTool, { network_name: 'nowhere', node_id: 'a' });
    expect(noNetwork.result).toMatchObject({ status: 'error', node_id: 'a' });
    expect(noNetwork.result.error).toMatch(/network_create/);
    expect(
      (
        await call(networkAddEdgeTool, {
          network_name: 'module_deps',
          source: 'agents',
          target: 'ghost',
          weight: 3,
        })
      ).result,
    ).toMatchObject({ status: 'error', source: 'agents', target: 'ghost', weight: 3 });
    expect((await call(networkListTool, { cursor: 'bogus' })).result).toMatchObject({
      status: 'error',
      networks: [],
      next_cursor: null,
    });
    expect(await nb.networkEvents()).toBe(before);
  });

  it('refuse writes without the network-write grant, and appends nothing', async () => {
    const before = await nb.networkEvents();
    const refused = await call(
      networkAddNodeTool,
      { network_name: 'module_deps', node_id: 'intruder' },
      reader,
    );
    expect(refused).toMatchObject({ isError: true, result: { status: 'error' } });
    expect(refused.text).toMatch(/^PERMISSION_DENIED/);
    expect(await nb.networkEvents()).toBe(before);
  });

  it('go through the gateway call path: structured results, errors marked isError', async () => {
    const prepared = prepareTools(ALL_TOOLS);
    const env = {
      services,
      caller: writer,
      logger: silentLogger,
      signal: new AbortController().signal,
      progress: () => Promise.resolve(),
      log: () => Promise.resolve(),
    };
    const ok = await callTool(
      prepared.get('network_get_neighbors')!,
      { network_name: 'module_deps', node_id: 'logging' },
      env,
    );
    expect(ok.isError).toBeUndefined();
    expect(ok.structuredContent).toEqual({
      status: 'success',
      node_id: 'logging',
      neighbors: ['agents'],
      count: 1,
    });
    const failed = await callTool(
      prepared.get('network_add_edge')!,
      { network_name: 'nowhere', source: 'a', target: 'b' },
      env,
    );
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toMatchObject({ status: 'error', source: 'a', weight: 1 });
    expect(failed.content[0]?.text).toMatch(/^NOT_FOUND: Network "nowhere" does not exist/);
  });

  it('reject bad arguments at the input schema', () => {
    const bad: [ToolDefinition, unknown][] = [
      [networkGetNeighborsTool, { network_name: '', node_id: 'a' }],
      [networkGetNeighborsTool, { network_name: 'module_deps', node_id: '' }],
      [networkAddNodeTool, { network_name: 'm', node_id: 'a', attributes: { deep: { x: 1 } } }],
      [networkAddEdgeTool, { network_name: 'm', source: 'a', target: 'b', weight: 'heavy' }],
      [networkAddEdgeTool, { network_name: 'm', source: 'a' }],
      [networkCreateTool, { network_name: 'has space' }],
      [networkListTool, { limit: 1000 }],
    ];
    for (const [tool, args] of bad) expect(tool.input.safeParse(args).success).toBe(false);
  });
});

describe('batch network tools', () => {
  const prepared = prepareTools(ALL_TOOLS);
  const viaGateway = (name: string, args: unknown, caller = writer) =>
    callTool(prepared.get(name)!, args, {
      services,
      caller,
      logger: silentLogger,
      signal: new AbortController().signal,
      progress: () => Promise.resolve(),
      log: () => Promise.resolve(),
    });

  beforeAll(async () => {
    await call(networkCreateTool, { network_name: 'batch_tools' });
    await call(networkAddNodeTool, { network_name: 'batch_tools', node_id: 'seed' });
  });

  it("are registered as network writes with the single tools' idempotency", () => {
    expect(networkAddNodesTool).toMatchObject({
      access: 'network-write',
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
    });
    expect(networkAddEdgesTool).toMatchObject({
      access: 'network-write',
      annotations: { readOnlyHint: false, idempotentHint: false },
    });
  });

  it('answer each node as network_add_node would, with counts and a text summary', async () => {
    const answer = await viaGateway('network_add_nodes', {
      network_name: 'batch_tools',
      nodes: [
        { node_id: 'seed' },
        { node_id: 'x', data: 'Core', attributes: { layer: 2 } },
        { node_id: 'x' },
        { node_id: 'y' },
      ],
    });
    expect(answer.isError).toBeUndefined();
    expect(answer.structuredContent).toEqual({
      status: 'success',
      network_name: 'batch_tools',
      added: 2,
      duplicates: 2,
      errors: 0,
      results: [
        {
          status: 'duplicate',
          node_id: 'seed',
          message: "Node 'seed' already exists in 'batch_tools'; nothing changed",
        },
        { status: 'success', node_id: 'x', message: "Node 'x' added" },
        {
          status: 'duplicate',
          node_id: 'x',
          message: "Node 'x' already exists in 'batch_tools'; nothing changed",
        },
        { status: 'success', node_id: 'y', message: "Node 'y' added" },
      ],
    });
    expect(answer.content[0]?.text).toBe(
      "2 node(s) added, 2 duplicate(s), 0 error(s) in 'batch_tools'",
    );
  });

  it('answer a failed edge with its reason and the call as partial, the others added', async () => {
    const answer = await viaGateway('network_add_edges', {
      network_name: 'batch_tools',
      edges: [
        { source: 'x', target: 'y', weight: 2 },
        { source: 'x', target: 'ghost' },
      ],
    });
    expect(answer.isError).toBeUndefined();
    expect(answer.structuredContent).toEqual({
      status: 'partial',
      network_name: 'batch_tools',
      added: 1,
      errors: 1,
      results: [
        { status: 'success', source: 'x', target: 'y', weight: 2 },
        {
          status: 'error',
          source: 'x',
          target: 'ghost',
          weight: 1,
          error: 'Network "batch_tools" has no node "ghost": add it with network_add_node first.',
        },
      ],
    });
    expect(answer.content[0]?.text).toBe(
      "1 edge(s) added, 1 error(s) in 'batch_tools'\n- [1] 'x' → 'ghost': Network \"batch_tools\" has no node \"ghost\": add it with network_add_node first.",
    );
    const neighbours = await call(
      networkGetNeighborsTool,
      { network_name: 'batch_tools', node_id: 'y' },
      reader,
    );
    expect(neighbours.result.neighbors).toEqual(['x']);
  });

  it('answer a missing network as an error result for the whole call', async () => {
    const answer = await viaGateway('network_add_nodes', {
      network_name: 'nowhere',
      nodes: [{ node_id: 'a' }],
    });
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent).toMatchObject({
      status: 'error',
      network_name: 'nowhere',
      results: [],
    });
    expect(answer.content[0]?.text).toMatch(/^NOT_FOUND: Network "nowhere" does not exist/);
  });

  it('refuse 1001 items with the bound in the message, and append nothing', async () => {
    const before = await nb.networkEvents();
    const nodes = Array.from({ length: 1001 }, (_, i) => ({ node_id: `n${String(i)}` }));
    const tooMany = await viaGateway('network_add_nodes', { network_name: 'batch_tools', nodes });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.content[0]?.text).toMatch(
      /^INVALID_ARGUMENT: .*network_add_nodes.*nodes.*at most 1000 nodes per call; send the rest in further calls/,
    );
    const edges = Array.from({ length: 1001 }, () => ({ source: 'x', target: 'y' }));
    const tooManyEdges = await viaGateway('network_add_edges', {
      network_name: 'batch_tools',
      edges,
    });
    expect(tooManyEdges.content[0]?.text).toMatch(/at most 1000 edges per call/);
    const badItem = await viaGateway('network_add_edges', {
      network_name: 'batch_tools',
      edges: [{ source: 'x', target: 'y', colour: 'red' }],
    });
    expect(badItem.isError).toBe(true);
    expect(badItem.content[0]?.text).toMatch(/colour/);
    expect(await nb.networkEvents()).toBe(before);
  });

  it('refuse callers without the network-write grant, and append nothing', async () => {
    const before = await nb.networkEvents();
    for (const [name, args] of [
      ['network_add_nodes', { network_name: 'batch_tools', nodes: [{ node_id: 'intruder' }] }],
      ['network_add_edges', { network_name: 'batch_tools', edges: [{ source: 'x', target: 'y' }] }],
    ] as const) {
      const refused = await viaGateway(name, args, reader);
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(/^PERMISSION_DENIED/);
    }
    expect(await nb.networkEvents()).toBe(before);
  });
});
