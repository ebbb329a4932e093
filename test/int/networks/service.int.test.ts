import { UNRESTRICTED } from '../../../services/access/grants.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networksProjection } from '../../../services/networks/read-model/projection.js';
import { getResource, resourceContentHash } from '../../../projections/resources.js';
import { networkDocument } from '../../../services/networks/read-model/state.js';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection } from '../../../projections/replay.js';
import {
  NetworkLimitReached,
  NetworkNotFound,
  NodeNotFound,
} from '../../../services/networks/errors.js';
import { networkStreamId } from '../../../services/networks/events.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { metaFor, openNetworksBed, type NetworksBed } from './support.js';

/**
 * The Networks capability against real Postgres: commands append to `network-<name>`, the
 * projection builds the read model, and a read waits for the network's latest write.
 */
let nb: NetworksBed;

beforeAll(async () => {
  nb = await openNetworksBed('networks');
});

afterAll(async () => {
  await nb.close();
});

const create = (name: string, description?: string) =>
  nb.service.createNetwork(
    { networkName: name, ...(description === undefined ? {} : { description }) },
    metaFor(),
  );
const addNode = (networkName: string, nodeId: string, extra: object = {}) =>
  nb.service.addNode({ networkName, nodeId, ...extra }, metaFor());
const addEdge = (networkName: string, source: string, target: string, extra: object = {}) =>
  nb.service.addEdge({ networkName, source, target, ...extra }, metaFor());

describe('creating networks', () => {
  it('given no network, when created, then NetworkCreated is stored and the summary is readable', async () => {
    const result = await create('module_deps', 'Module dependencies');
    expect(result).toMatchObject({
      status: 'success',
      networkName: 'module_deps',
      revision: 0n,
    });
    const events = await nb.bed.store.readStream(networkStreamId('module_deps'));
    expect(events.map((event) => event.type)).toEqual(['NetworkCreated']);
    expect(events[0]?.metadata.actor).toBe('agent:builder');
    expect(await nb.service.getNetwork(UNRESTRICTED, 'module_deps')).toMatchObject({
      name: 'module_deps',
      uri: 'cogitave://network/module_deps',
      description: 'Module dependencies',
      createdBy: 'agent:builder',
      nodeCount: 0,
      edgeCount: 0,
    });
  });

  it('given the network exists, when created again, then duplicate and nothing appended', async () => {
    await create('dup_net');
    const before = await nb.networkEvents();
    const again = await create('dup_net', 'another description');
    expect(again.status).toBe('duplicate');
    expect(await nb.networkEvents()).toBe(before);
    expect((await nb.service.getNetwork(UNRESTRICTED, 'dup_net')).description).toBeNull();
  });
});

describe('nodes', () => {
  it('given a network, when a node is added, then the same agent reads it at once (read-your-writes)', async () => {
    await create('ryw');
    const added = await addNode('ryw', 'agents', { data: 'Core', attributes: { layer: 2 } });
    expect(added).toMatchObject({ status: 'success', nodeId: 'agents' });
    // No waiting here: the write returned only once the read model showed it.
    expect(await nb.service.getNeighbors(UNRESTRICTED, 'ryw', 'agents')).toEqual({
      nodeId: 'agents',
      neighbors: [],
    });
    expect(await nb.service.getNode(UNRESTRICTED, 'ryw', 'agents')).toMatchObject({
      nodeId: 'agents',
      ordinal: 0,
      data: 'Core',
      attributes: { layer: 2 },
      addedBy: 'agent:builder',
    });
  });

  it('given a node, when added again, then duplicate and nothing appended', async () => {
    await create('dup_node');
    await addNode('dup_node', 'a', { data: { v: 1 } });
    const before = await nb.networkEvents();
    const again = await addNode('dup_node', 'a', { data: { v: 2 } });
    expect(again.status).toBe('duplicate');
    expect(await nb.networkEvents()).toBe(before);
    expect((await nb.service.getNode(UNRESTRICTED, 'dup_node', 'a')).data).toEqual({ v: 1 });
  });

  it('given no such network, when a node is added, then NetworkNotFound and nothing appended', async () => {
    const before = await nb.networkEvents();
    await expect(addNode('missing_net', 'a')).rejects.toThrow(NetworkNotFound);
    await expect(addNode('missing_net', 'a')).rejects.toThrow(/network_create/);
    expect(await nb.networkEvents()).toBe(before);
  });

  it('given 8 callers on separate replicas, when all add the same node at once, then exactly one NetworkNodeAdded', async () => {
    await create('race');
    const replicas = Array.from({ length: 8 }, () => nb.replica());
    // Each replica has read the stream before the race, so each decides on a stale state.
    await Promise.all(
      replicas.map((replica) =>
        replica.addNode({ networkName: 'race', nodeId: 'warm' }, metaFor()),
      ),
    );
    const results = await Promise.all(
      replicas.map((replica, i) =>
        replica.addNode({ networkName: 'race', nodeId: 'hot', data: i }, metaFor(`agent:${i}`)),
      ),
    );
    expect(results.filter((r) => r.status === 'success')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'duplicate')).toHaveLength(7);
    const events = await nb.bed.store.readStream(networkStreamId('race'));
    expect(
      events.filter(
        (e) => e.type === 'NetworkNodeAdded' && (e.data as { nodeId: string }).nodeId === 'hot',
      ),
    ).toHaveLength(1);
  });

  it('given a replica with a cached state, when another replica adds the node, then it answers duplicate', async () => {
    await create('stale');
    const first = nb.replica();
    const second = nb.replica();
    await second.addNode({ networkName: 'stale', nodeId: 'x' }, metaFor());
    await first.addNode({ networkName: 'stale', nodeId: 'y' }, metaFor());
    const late = await second.addNode({ networkName: 'stale', nodeId: 'y' }, metaFor());
    expect(late.status).toBe('duplicate');
    expect(late.revision).toBe(2n);
  });

  it('given a replica whose cache is behind, when it adds an edge to a node another replica added, then it succeeds', async () => {
    await create('behind');
    const first = nb.replica();
    const second = nb.replica();
    await first.addNode({ networkName: 'behind', nodeId: 'a' }, metaFor());
    await second.addNode({ networkName: 'behind', nodeId: 'b' }, metaFor());
    // `first` has never seen b: its refusal must be checked against the stream.
    const edge = await first.addEdge(
      { networkName: 'behind', source: 'a', target: 'b' },
      metaFor(),
    );
    expect(edge).toMatchObject({ status: 'success', edgeId: 1, revision: 3n });
    await expect(
      first.addEdge({ networkName: 'behind', source: 'a', target: 'c' }, metaFor()),
    ).rejects.toThrow(NodeNotFound);
  });

  it('given a network at its node limit, when one more node, then NetworkLimitReached and nothing appended', async () => {
    const small = nb.replica({ limits: { maxNodes: 2, maxEdges: 1 } });
    await small.createNetwork({ networkName: 'small' }, metaFor());
    await small.addNode({ networkName: 'small', nodeId: 'a' }, metaFor());
    await small.addNode({ networkName: 'small', nodeId: 'b' }, metaFor());
    await small.addEdge({ networkName: 'small', source: 'a', target: 'b' }, metaFor());
    const before = await nb.networkEvents();
    await expect(small.addNode({ networkName: 'small', nodeId: 'c' }, metaFor())).rejects.toThrow(
      NetworkLimitReached,
    );
    await expect(
      small.addEdge({ networkName: 'small', source: 'b', target: 'a' }, metaFor()),
    ).rejects.toThrow(NetworkLimitReached);
    expect(await nb.networkEvents()).toBe(before);
  });
});

describe('edges and neighbours', () => {
  beforeAll(async () => {
    await create('graph');
    for (const id of ['agents', 'logging', 'cli', 'core', 'lonely']) await addNode('graph', id);
  });

  it('given two nodes, when the same edge is added twice, then two edges are stored (not idempotent)', async () => {
    const first = await addEdge('graph', 'agents', 'logging', {
      weight: 2.5,
      attributes: { relation: 'depends_on' },
    });
    const second = await addEdge('graph', 'agents', 'logging', {
      weight: 2.5,
      attributes: { relation: 'depends_on' },
    });
    expect(first).toMatchObject({ status: 'success', edgeId: 1, weight: 2.5 });
    expect(second).toMatchObject({ status: 'success', edgeId: 2, weight: 2.5 });
    expect((await nb.service.getNetwork(UNRESTRICTED, 'graph')).edgeCount).toBe(2);
    const { rows } = await nb.bed.database.pool.query(
      `SELECT edge_id, source, target, weight, attributes FROM read_model.network_edges
        WHERE network = 'graph' ORDER BY edge_id`,
    );
    expect(rows).toEqual([
      {
        edge_id: 1,
        source: 'agents',
        target: 'logging',
        weight: 2.5,
        attributes: { relation: 'depends_on' },
      },
      {
        edge_id: 2,
        source: 'agents',
        target: 'logging',
        weight: 2.5,
        attributes: { relation: 'depends_on' },
      },
    ]);
  });

  it('defaults the weight to 1.0', async () => {
    expect((await addEdge('graph', 'cli', 'agents')).weight).toBe(1);
  });

  it('lists neighbours over outbound and inbound edges, each once, in order of the first edge', async () => {
    await addEdge('graph', 'core', 'agents');
    await addEdge('graph', 'agents', 'cli');
    // agents → logging (×2), cli → agents, core → agents, agents → cli
    expect(await nb.service.getNeighbors(UNRESTRICTED, 'graph', 'agents')).toEqual({
      nodeId: 'agents',
      neighbors: ['logging', 'cli', 'core'],
    });
    expect((await nb.service.getNeighbors(UNRESTRICTED, 'graph', 'logging')).neighbors).toEqual([
      'agents',
    ]);
    expect((await nb.service.getNeighbors(UNRESTRICTED, 'graph', 'lonely')).neighbors).toEqual([]);
  });

  it('lists a node with a self-loop as its own neighbour', async () => {
    await addEdge('graph', 'lonely', 'lonely');
    expect((await nb.service.getNeighbors(UNRESTRICTED, 'graph', 'lonely')).neighbors).toEqual([
      'lonely',
    ]);
  });

  it('given an unknown node, when an edge names it, then NodeNotFound and nothing appended', async () => {
    const before = await nb.networkEvents();
    await expect(addEdge('graph', 'agents', 'ghost')).rejects.toThrow(NodeNotFound);
    await expect(addEdge('graph', 'ghost', 'phantom')).rejects.toThrow(/"ghost" and "phantom"/);
    await expect(addEdge('nowhere', 'a', 'b')).rejects.toThrow(NetworkNotFound);
    expect(await nb.networkEvents()).toBe(before);
  });

  it('answers neighbour reads of an unknown network or node with NotFound errors', async () => {
    await expect(nb.service.getNeighbors(UNRESTRICTED, 'nowhere', 'a')).rejects.toThrow(
      NetworkNotFound,
    );
    await expect(nb.service.getNeighbors(UNRESTRICTED, 'graph', 'ghost')).rejects.toThrow(
      NodeNotFound,
    );
    await expect(nb.service.getNode(UNRESTRICTED, 'graph', 'ghost')).rejects.toThrow(NodeNotFound);
  });

  it('given 8 replicas adding edges at once, then 8 edges with distinct ids', async () => {
    const before = (await nb.service.getNetwork(UNRESTRICTED, 'graph')).edgeCount;
    const replicas = Array.from({ length: 8 }, () => nb.replica());
    const results = await Promise.all(
      replicas.map((replica) =>
        replica.addEdge({ networkName: 'graph', source: 'core', target: 'cli' }, metaFor()),
      ),
    );
    const ids = results.map((r) => r.edgeId).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 8 }, (_, i) => before + i + 1));
  });

  it('given a command retried with the same commandId, then its edge is stored once', async () => {
    const meta = metaFor('agent:retry', randomUUID());
    const input = { networkName: 'graph', source: 'cli', target: 'core' };
    const first = await nb.service.addEdge(input, meta);
    const retried = await nb.replica().addEdge(input, meta);
    expect(retried.edgeId).toBe(first.edgeId);
    const { rows } = await nb.bed.database.pool.query(
      `SELECT count(*)::int AS n FROM event_store.events WHERE (content::jsonb)->'metadata'->>'actor' = 'agent:retry'`,
    );
    expect(rows[0]).toEqual({ n: 1 });
  });
});

describe('bad input', () => {
  it('refuses each bad input with InvalidArgument and appends nothing', async () => {
    await create('strict');
    await addNode('strict', 'a');
    const before = await nb.networkEvents();
    const attempts: (() => Promise<unknown>)[] = [
      () => nb.service.createNetwork({ networkName: 'has space' }, metaFor()),
      () => nb.service.createNetwork({ networkName: '' }, metaFor()),
      () => nb.service.addNode({ networkName: 'strict', nodeId: '' }, metaFor()),
      () => nb.service.addNode({ networkName: 'strict', nodeId: 'x'.repeat(257) }, metaFor()),
      () =>
        nb.service.addNode(
          { networkName: 'strict', nodeId: 'b', attributes: { nested: { no: 1 } } as never },
          metaFor(),
        ),
      () =>
        nb.service.addNode(
          { networkName: 'strict', nodeId: 'b', data: 'x'.repeat(70_000) },
          metaFor(),
        ),
      () =>
        nb.service.addEdge(
          { networkName: 'strict', source: 'a', target: 'a', weight: Number.NaN },
          metaFor(),
        ),
      () =>
        nb.service.addEdge(
          { networkName: 'strict', source: 'a', target: 'a', weight: '1' as never },
          metaFor(),
        ),
      () =>
        nb.service.addNode(
          { networkName: 'strict', nodeId: 'b' },
          { ...metaFor(), commandId: 'x' },
        ),
      () => nb.service.getNeighbors(UNRESTRICTED, 'bad name', 'a'),
      () => nb.service.listNetworks(UNRESTRICTED, { cursor: 'not-a-cursor' }),
      () => nb.service.listNetworks(UNRESTRICTED, { limit: 0 }),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toThrow(InvalidArgument);
    expect(await nb.networkEvents()).toBe(before);
  });
});

describe('listing and the resource', () => {
  it('pages through networks in name order with an opaque cursor', async () => {
    const all: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await nb.service.listNetworks(UNRESTRICTED, { limit: 3, cursor });
      all.push(...page.networks.map((n) => n.name));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(all).toEqual([...all].sort());
    expect(all).toEqual(expect.arrayContaining(['graph', 'module_deps', 'race', 'ryw', 'strict']));
    expect(new Set(all).size).toBe(all.length);
  });

  it('serves cogitave://network/<name> with the hash the resource index holds', async () => {
    const resource = await nb.service.readResource(UNRESTRICTED, 'graph');
    const summary = await nb.service.getNetwork(UNRESTRICTED, 'graph');
    expect(resource?.document).toEqual(networkDocument(summary));
    expect(resource?.document).toMatchObject({ name: 'graph', nodeCount: 5 });
    expect(resource?.contentHash).toBe(resourceContentHash(resource?.document));
    const entry = await getResource(nb.bed.database.pool, UNRESTRICTED, 'cogitave://network/graph');
    expect(entry).toMatchObject({
      type: 'network',
      contentHash: resource?.contentHash,
      lastModified: resource?.lastModified,
    });
    expect(await nb.service.readResource(UNRESTRICTED, 'nowhere')).toBeUndefined();
    expect(await nb.service.readResource(UNRESTRICTED, 'not a name')).toBeUndefined();
  });
});

describe('replay', () => {
  it('rebuilds into a shadow schema with the live digests, twice over', async () => {
    const { position } = await nb.service.getNetwork(UNRESTRICTED, 'graph').then(async () => {
      const events = await nb.bed.store.readAll({
        direction: 'backwards',
        maxCount: 1,
        filter: networksProjection.filter,
      });
      return { position: events[0]!.position };
    });
    await nb.runner.waitFor(
      'networks',
      (s) => s.position !== null && s.position >= position,
      20_000,
    );
    const live = await digestTables(nb.bed.database.pool, networksProjection);
    for (const batchSize of [7, 500]) {
      await replayProjection({
        pool: nb.bed.database.pool,
        eventStore: nb.bed.store,
        projection: networksProjection,
        schema: 'shadow_networks',
        batchSize,
      });
      expect(
        await digestTables(nb.bed.database.pool, networksProjection, 'shadow_networks'),
      ).toEqual(live);
    }
    expect(live.find((d) => d.table === 'network_edges')?.rows).toBeGreaterThan(10);
  });
});
