import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED } from '../../../services/access/grants.js';
import { NetworkNotFound, NodeNotFound } from '../../../services/networks/errors.js';
import { networkStreamId } from '../../../services/networks/events.js';
import { MAX_BATCH_ITEMS } from '../../../services/networks/inputs.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { metaFor, openNetworksBed, type NetworksBed } from './support.js';

/**
 * The batch commands against real Postgres: each item answers as the single-item command
 * would, the successes of a call land in one event (`NetworkNodesAdded` / `NetworkEdgesAdded`,
 * one row, one transaction), and a failing append leaves nothing of the call behind.
 */
let nb: NetworksBed;

beforeAll(async () => {
  nb = await openNetworksBed('network_batches');
});

afterAll(async () => {
  await nb.close();
});

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i)}`);

/** The types of the events of `stream` from `fromRevision` on, in order. */
const typesOf = async (stream: string, fromRevision: number): Promise<string[]> => {
  const { rows } = await nb.bed.database.pool.query<{ type: string }>(
    `SELECT event_type AS type FROM event_store.events
      WHERE stream_id = $1 AND stream_revision >= $2 ORDER BY stream_revision`,
    [stream, fromRevision],
  );
  return rows.map((row) => row.type);
};

/** The transaction ids that stored the events of `stream` from `fromRevision` on. */
const transactionsOf = async (stream: string, fromRevision: number): Promise<string[]> => {
  const { rows } = await nb.bed.database.pool.query<{ tx: string }>(
    `SELECT DISTINCT transaction_id::text AS tx FROM event_store.events
      WHERE stream_id = $1 AND stream_revision >= $2`,
    [stream, fromRevision],
  );
  return rows.map((row) => row.tx);
};

describe('network_add_nodes', () => {
  beforeAll(async () => {
    await nb.service.createNetwork({ networkName: 'bulk' }, metaFor());
    await nb.service.addNode({ networkName: 'bulk', nodeId: 'old' }, metaFor());
  });

  it('given node "old", when old, b, b, c are added, then b and c once, the rest duplicate, in one event', async () => {
    const result = await nb.service.addNodes(
      {
        networkName: 'bulk',
        nodes: [
          { nodeId: 'old' },
          { nodeId: 'b', data: { first: true } },
          { nodeId: 'b', data: { first: false } },
          { nodeId: 'c', attributes: { layer: 3 } },
        ],
      },
      metaFor('agent:bulk'),
    );
    expect(result.nodes).toEqual([
      { nodeId: 'old', status: 'duplicate' },
      { nodeId: 'b', status: 'success' },
      { nodeId: 'b', status: 'duplicate' },
      { nodeId: 'c', status: 'success' },
    ]);
    expect(result.revision).toBe(2n);
    expect(await typesOf(networkStreamId('bulk'), 2)).toEqual(['NetworkNodesAdded']);
    // The first of a repeated id wins; the read model shows the call at once.
    const b = await nb.service.getNode(UNRESTRICTED, 'bulk', 'b');
    expect(b).toMatchObject({ data: { first: true }, addedBy: 'agent:bulk' });
    expect(await nb.service.getNode(UNRESTRICTED, 'bulk', 'c')).toMatchObject({
      attributes: { layer: 3 },
    });
  });

  it(`given ${String(MAX_BATCH_ITEMS)} new nodes, when added, then all in one event and counted`, async () => {
    const result = await nb.service.addNodes(
      { networkName: 'bulk', nodes: ids('n', MAX_BATCH_ITEMS).map((nodeId) => ({ nodeId })) },
      metaFor(),
    );
    expect(result.nodes.every((node) => node.status === 'success')).toBe(true);
    expect(await typesOf(networkStreamId('bulk'), 3)).toEqual(['NetworkNodesAdded']);
    expect(result.revision).toBe(3n);
    expect((await nb.service.getNetwork(UNRESTRICTED, 'bulk')).nodeCount).toBe(3 + MAX_BATCH_ITEMS);
  });

  it('given a network at its node limit but one, when three new nodes, then one added and two errors with the reason', async () => {
    const small = nb.replica({ limits: { maxNodes: 2, maxEdges: 10 } });
    await small.createNetwork({ networkName: 'bulk_small' }, metaFor());
    await small.addNode({ networkName: 'bulk_small', nodeId: 'a' }, metaFor());
    const result = await small.addNodes(
      { networkName: 'bulk_small', nodes: [{ nodeId: 'b' }, { nodeId: 'c' }, { nodeId: 'a' }] },
      metaFor(),
    );
    expect(result.nodes.map((node) => node.status)).toEqual(['success', 'error', 'duplicate']);
    expect(result.nodes[1]?.error?.code).toBe('FAILED_PRECONDITION');
    expect(result.nodes[1]?.error?.message).toMatch(/most nodes a network may have \(2\)/);
  });

  it('given an append that fails, when the call fails, then none of its nodes is stored; the same call then succeeds', async () => {
    const pool = nb.bed.database.pool;
    // A real failure inside the store's transaction: the row holding node "poison" is refused.
    await pool.query(`
      CREATE FUNCTION public.refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.content::jsonb -> 'data' -> 'nodes' @> '[{"nodeId": "poison"}]' THEN
          RAISE EXCEPTION 'poisoned node refused by the test trigger';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON event_store.events
        FOR EACH ROW EXECUTE FUNCTION public.refuse_poison();`);
    const before = await nb.networkEvents();
    const nodesBefore = (await nb.service.getNetwork(UNRESTRICTED, 'bulk')).nodeCount;
    const nodes = [
      ...ids('atomic', 499).map((nodeId) => ({ nodeId })),
      { nodeId: 'poison' },
      ...ids('after', 100).map((nodeId) => ({ nodeId })),
    ];
    const meta = metaFor();
    try {
      await expect(nb.service.addNodes({ networkName: 'bulk', nodes }, meta)).rejects.toThrow();
      expect(await nb.networkEvents()).toBe(before);
      await expect(nb.service.getNode(UNRESTRICTED, 'bulk', 'atomic-0')).rejects.toThrow(
        NodeNotFound,
      );
    } finally {
      await pool.query(
        'DROP TRIGGER refuse_poison ON event_store.events; DROP FUNCTION public.refuse_poison()',
      );
    }
    const retried = await nb.service.addNodes({ networkName: 'bulk', nodes }, meta);
    expect(retried.nodes.filter((node) => node.status === 'success')).toHaveLength(600);
    expect(await nb.networkEvents()).toBe(before + 1);
    expect((await nb.service.getNetwork(UNRESTRICTED, 'bulk')).nodeCount).toBe(nodesBefore + 600);
  });

  it('given 4 replicas adding overlapping batches at once, then every node is stored exactly once', async () => {
    await nb.service.createNetwork({ networkName: 'bulk_race' }, metaFor());
    const replicas = Array.from({ length: 4 }, () => nb.replica());
    // Replica i adds nodes i*100 … i*100+199: each overlaps the next by 100.
    const results = await Promise.all(
      replicas.map((replica, i) =>
        replica.addNodes(
          {
            networkName: 'bulk_race',
            nodes: Array.from({ length: 200 }, (_, k) => ({ nodeId: `r-${String(i * 100 + k)}` })),
          },
          metaFor(`agent:${String(i)}`),
        ),
      ),
    );
    const successes = results.flatMap((result) =>
      result.nodes.filter((node) => node.status === 'success').map((node) => node.nodeId),
    );
    expect(successes).toHaveLength(500);
    expect(new Set(successes).size).toBe(500);
    const stored = (await nb.bed.store.readStream(networkStreamId('bulk_race'))).flatMap((event) =>
      event.type === 'NetworkNodesAdded'
        ? (event.data as { nodes: { nodeId: string }[] }).nodes.map((node) => node.nodeId)
        : [],
    );
    expect(stored).toHaveLength(500);
    expect(new Set(stored).size).toBe(500);
  });

  it('refuses a bad batch whole, naming the item, and appends nothing', async () => {
    const before = await nb.networkEvents();
    const tooMany = ids('x', MAX_BATCH_ITEMS + 1).map((nodeId) => ({ nodeId }));
    await expect(
      nb.service.addNodes({ networkName: 'bulk', nodes: tooMany }, metaFor()),
    ).rejects.toThrow(
      /nodes: must hold at most 1000 nodes per call; send the rest in further calls/,
    );
    await expect(
      nb.service.addNodes({ networkName: 'bulk', nodes: [] }, metaFor()),
    ).rejects.toThrow(InvalidArgument);
    await expect(
      nb.service.addNodes(
        { networkName: 'bulk', nodes: [{ nodeId: 'fine' }, { nodeId: '' }] },
        metaFor(),
      ),
    ).rejects.toThrow(/nodes\.1\.nodeId: must not be empty/);
    await expect(
      nb.service.addNodes({ networkName: 'nowhere', nodes: [{ nodeId: 'a' }] }, metaFor()),
    ).rejects.toThrow(NetworkNotFound);
    expect(await nb.networkEvents()).toBe(before);
  });
});

describe('network_add_edges', () => {
  beforeAll(async () => {
    await nb.service.createNetwork({ networkName: 'wires' }, metaFor());
    await nb.service.addNodes(
      { networkName: 'wires', nodes: ['a', 'b', 'c'].map((nodeId) => ({ nodeId })) },
      metaFor(),
    );
  });

  it('given a, b, c, when edges include one to a missing node, then it errors and the others get consecutive ids in one event', async () => {
    const result = await nb.service.addEdges(
      {
        networkName: 'wires',
        edges: [
          { source: 'a', target: 'b', weight: 2 },
          { source: 'a', target: 'ghost' },
          { source: 'a', target: 'b', weight: 2 },
          { source: 'c', target: 'a', attributes: { relation: 'uses' } },
        ],
      },
      metaFor(),
    );
    expect(result.edges).toEqual([
      { status: 'success', source: 'a', target: 'b', weight: 2, edgeId: 1 },
      {
        status: 'error',
        source: 'a',
        target: 'ghost',
        weight: 1,
        error: {
          code: 'NOT_FOUND',
          message: 'Network "wires" has no node "ghost": add it with network_add_node first.',
        },
      },
      { status: 'success', source: 'a', target: 'b', weight: 2, edgeId: 2 },
      { status: 'success', source: 'c', target: 'a', weight: 1, edgeId: 3 },
    ]);
    expect(await typesOf(networkStreamId('wires'), 2)).toEqual(['NetworkEdgesAdded']);
    expect(await transactionsOf(networkStreamId('wires'), 2)).toHaveLength(1);
    const neighbours = await nb.service.getNeighbors(UNRESTRICTED, 'wires', 'a');
    expect(neighbours.neighbors).toEqual(['b', 'c']);
  });

  it('given a replica whose cache has not seen a node, when its batch names it, then the edge is added', async () => {
    const stale = nb.replica();
    await stale.addEdges(
      { networkName: 'wires', edges: [{ source: 'a', target: 'c' }] },
      metaFor(),
    );
    await nb.service.addNodes({ networkName: 'wires', nodes: [{ nodeId: 'late' }] }, metaFor());
    const result = await stale.addEdges(
      { networkName: 'wires', edges: [{ source: 'late', target: 'a' }] },
      metaFor(),
    );
    expect(result.edges[0]).toMatchObject({ status: 'success' });
  });

  it('given a call retried with the same commandId, then its edges are stored once and answered with the same ids', async () => {
    const meta = metaFor('agent:retry-batch', randomUUID());
    const input = {
      networkName: 'wires',
      edges: [
        { source: 'b', target: 'c' },
        { source: 'b', target: 'nowhere' },
        { source: 'c', target: 'b' },
      ],
    };
    const first = await nb.service.addEdges(input, meta);
    const retried = await nb.replica().addEdges(input, meta);
    expect(retried.edges).toEqual(first.edges);
    const { rows } = await nb.bed.database.pool.query(
      `SELECT count(*)::int AS n FROM event_store.events
        WHERE (content::jsonb)->'metadata'->>'actor' = 'agent:retry-batch'`,
    );
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('refuses more than 1000 edges, or a bad weight, naming the item, and appends nothing', async () => {
    const before = await nb.networkEvents();
    await expect(
      nb.service.addEdges(
        {
          networkName: 'wires',
          edges: Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => ({ source: 'a', target: 'b' })),
        },
        metaFor(),
      ),
    ).rejects.toThrow(/edges: must hold at most 1000 edges per call/);
    await expect(
      nb.service.addEdges(
        { networkName: 'wires', edges: [{ source: 'a', target: 'b', weight: Number.NaN }] },
        metaFor(),
      ),
    ).rejects.toThrow(/edges\.0\.weight/);
    expect(await nb.networkEvents()).toBe(before);
  });
});
