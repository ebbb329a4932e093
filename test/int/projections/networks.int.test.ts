import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestTables } from '../../../projections/digest.js';
import { networksProjection } from '../../../services/networks/read-model/projection.js';
import { replayProjection } from '../../../projections/replay.js';
import { createProjectionRunner } from '../../../projections/runner.js';
import { commandEventId } from '../../../services/commands/event-ids.js';
import {
  networkStreamId,
  type AddedEdge,
  type AddedNode,
  type NetworkEvent,
} from '../../../services/networks/events.js';
import { openTestBed, silentLogger, type TestBed } from './support/fixtures.js';

/**
 * The networks projection on both shapes of the log: a batch event (`NetworkNodesAdded`,
 * `NetworkEdgesAdded`) stands for its items one after another, so a network built with
 * batches has the same nodes, edges and counts as one built item by item; and a replay into a
 * shadow has the live digests.
 */
const at = '2026-12-01T10:00:00.000Z';

const node = (nodeId: string): AddedNode => ({ nodeId, data: { of: nodeId }, attributes: {} });
const edge = (edgeId: number, source: string, target: string): AddedEdge => ({
  edgeId,
  source,
  target,
  weight: edgeId / 2,
  attributes: { n: edgeId },
});

/** The same network: items in single events, or in batch events (a repeated node once). */
const history = (name: string, batched: boolean): NetworkEvent[] => {
  const created: NetworkEvent = {
    type: 'NetworkCreated',
    data: { networkName: name, description: 'pipes', createdBy: 'agent:a' },
  };
  const nodes = ['a', 'b', 'a', 'c', 'd'].map(node);
  const edges = [edge(1, 'a', 'b'), edge(2, 'b', 'c'), edge(3, 'c', 'a'), edge(4, 'd', 'd')];
  if (!batched) {
    return [
      created,
      ...nodes.map((data): NetworkEvent => ({
        type: 'NetworkNodeAdded',
        data: { networkName: name, ...data },
      })),
      ...edges.map((data): NetworkEvent => ({
        type: 'NetworkEdgeAdded',
        data: { networkName: name, ...data },
      })),
    ];
  }
  return [
    created,
    { type: 'NetworkNodesAdded', data: { networkName: name, nodes: nodes.slice(0, 3) } },
    { type: 'NetworkNodeAdded', data: { networkName: name, ...node('c') } },
    { type: 'NetworkNodesAdded', data: { networkName: name, nodes: [node('d'), node('a')] } },
    { type: 'NetworkEdgesAdded', data: { networkName: name, edges: edges.slice(0, 3) } },
    { type: 'NetworkEdgeAdded', data: { networkName: name, ...edge(4, 'd', 'd') } },
  ];
};

const append = async (bed: TestBed, name: string, events: readonly NetworkEvent[]) => {
  await bed.store.append(
    networkStreamId(name),
    events.map((event, index) => ({
      id: commandEventId(`projection-${name}`, index),
      type: event.type,
      data: event.data,
      metadata: { actor: 'agent:a', correlationId: 'c', causationId: 'c', at },
    })),
    { expectedRevision: 'no_stream' },
  );
};

const rowsOf = async (bed: TestBed, name: string) => {
  const pool = bed.database.pool;
  const nodes = await pool.query<{ node_id: string; ordinal: number }>(
    `SELECT node_id, ordinal, data, attributes, added_by FROM read_model.network_nodes
      WHERE network = $1 ORDER BY ordinal`,
    [name],
  );
  const edges = await pool.query(
    `SELECT edge_id, source, target, weight, attributes FROM read_model.network_edges
      WHERE network = $1 ORDER BY edge_id`,
    [name],
  );
  const summary = await pool.query<{ node_count: number; edge_count: number }>(
    'SELECT node_count, edge_count FROM read_model.networks WHERE name = $1',
    [name],
  );
  return { nodes: nodes.rows, edges: edges.rows, summary: summary.rows[0] };
};

describe('networks projection: batch events', () => {
  let bed: TestBed;
  let events = 0;

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'proj_networks', [networksProjection]);
    for (const [name, batched] of [
      ['single', false],
      ['batched', true],
    ] as const) {
      const stream = history(name, batched);
      await append(bed, name, stream);
      events += stream.length;
    }
    const runner = createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      projections: [networksProjection],
      lagProbeIntervalMs: 0,
    });
    runner.start();
    try {
      await runner.waitFor('networks', (s) => s.eventsApplied === events, 30_000);
    } finally {
      await runner.stop();
    }
  });

  afterAll(async () => {
    await bed.close();
  });

  it('given the same items as single events and as batches, then the same nodes, edges and counts', async () => {
    const single = await rowsOf(bed, 'single');
    const batched = await rowsOf(bed, 'batched');
    expect(single.nodes.map((row) => [row.node_id, row.ordinal])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
      ['d', 3],
    ]);
    expect(single.summary).toEqual({ node_count: 4, edge_count: 4 });
    expect(batched).toEqual(single);
  });

  it('given batch events, when replayed into a shadow, then its digests equal live', async () => {
    const schema = 'shadow_networks';
    const result = await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: networksProjection,
      schema,
      batchSize: 3,
    });
    expect(result.events).toBe(events);
    expect(await digestTables(bed.database.pool, networksProjection, schema)).toEqual(
      await digestTables(bed.database.pool, networksProjection),
    );
  });
});
