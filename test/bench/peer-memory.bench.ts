/**
 * Peer comparison: our `network_*` tools against the official MCP memory server
 * (`@modelcontextprotocol/server-memory`), both over stdio, both driven by the v1 SDK client in
 * the same run, on the same seeded graphs: for each size of BENCH_SIZES (node counts, default
 * `2000,10000`) that many nodes and BENCH_EDGES_PER_NODE times as many edges (default 2)
 * between random nodes, then BENCH_READS neighbour reads (default 1,000).
 *
 *   npm run bench:peer-memory
 *   BENCH_SIZES=500 BENCH_READS=200 npm run bench:peer-memory
 *
 * Four servers per size, each built the same way (the same client, calls issued one after
 * another, each awaited). The two 1-per-call servers build together, taking turns of 200
 * items, each turn timed for its server alone, and so do the two batched ones; the neighbour
 * reads alternate too. A change in the machine's load then hits both sides of a ratio alike
 * (ours lets its read model catch up, untimed, before handing over the turn).
 * - ours, 1 per call: `network_add_node` / `network_add_edge` (the Networks seed's shape);
 * - ours, batched: `network_add_nodes` / `network_add_edges`, BENCH_BATCH items per call
 *   (default 100);
 * - memory server, 1 per call: `create_entities` / `create_relations` with one item per call;
 * - memory server, batched: BENCH_BATCH items per call, its own affordance.
 * The batched pair builds the graph BENCH_BATCH_ROUNDS times (default 5), each round on an
 * empty graph (ours on a new network, the memory server after deleting its entities, untimed),
 * and its rates are over all rounds: at 2,000 nodes one build is 20 calls a side, where one
 * hiccup of the machine would decide the ratio. Neighbours are read on the last round's graph.
 * Neighbours: ours `network_get_neighbors`; the memory server `open_nodes({ names: [node] })`,
 * whose relations with either end at the node give the neighbours (one node per call).
 *
 * The memory server rewrites its whole JSONL file on every call, so one edge per call grows
 * quadratically; its 1-per-call edge rate is timed on the first BENCH_PEER_EDGE_SAMPLE edges
 * (default 2,000; 0 times all), where its file is smallest, and the rest are added untimed,
 * 100 per call. That flatters the peer, never us. BENCH_MEMORY_PER_CALL=0 skips its 1-per-call
 * build altogether. BENCH_TIMED_EVERY=k (default 1) times only every k-th turn of 50 items (1-per-call servers)
 * and adds the others untimed, 100 per call, for every server alike: the timed items are then
 * spread evenly over the build, so the rates still average over the graph growing from empty,
 * in a k-th of the time (the peer's edge sample is then not needed).
 *
 * Both warm up untimed first: BENCH_WARM_UP (default 300) calls each of adding a node, adding
 * an edge and reading neighbours, one item per call, and the batched servers a tenth as many
 * calls each of adding BENCH_BATCH nodes and edges (ours on a network of its own; the memory
 * server then deletes its warm-up entities, so its file is empty again when timing starts).
 *
 * Durability: ours answers once its append has committed on server Postgres (the run prints
 * `fsync` and `synchronous_commit`); the memory server writes its file without fsync.
 *
 * Targets (issue "Writes that scale with their callers"): ours 1 per call ≥ 1× the memory
 * server's 1-per-call node rate at 2k nodes and ≥ 3× at 10k, edges ≥ 10× at 10k; ours batched
 * ≥ 1× its batched rate, nodes and edges, at every size.
 *
 * Ours runs `tsx bin/cogitave.ts serve --stdio` on a throwaway database of server Postgres
 * (TEST_DATABASE_URL is the admin connection), one database and process per server; the memory
 * server keeps MEMORY_FILE_PATH in a temporary folder. Headline figures go to
 * BENCH_FIGURES_FILE when it is set.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cliEnv, repoRoot } from '../support/cli.js';
import { createThrowawayDatabase } from '../support/postgres.js';
import { recordFigures, type BenchFigure } from './figures.js';
import { benchNodeId, seededRandom } from './networks.bench.js';

const NETWORK = 'peer_bench';

const intFrom = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`${name} must be a non-negative integer (got ${String(raw)})\n`);
    process.exit(2);
  }
  return value;
};

const listFrom = (name: string, fallback: readonly number[]): number[] => {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < 2)) {
    process.stderr.write(`${name} must be a comma list of integers ≥ 2 (got ${raw})\n`);
    process.exit(2);
  }
  return values;
};

const settings = {
  sizes: listFrom('BENCH_SIZES', [2000, 10_000]),
  edgesPerNode: intFrom('BENCH_EDGES_PER_NODE', 2),
  reads: Math.max(1, intFrom('BENCH_READS', 1000)),
  batch: Math.max(2, intFrom('BENCH_BATCH', 100)),
  memoryPerCall: intFrom('BENCH_MEMORY_PER_CALL', 1) !== 0,
  peerEdgeSample: intFrom('BENCH_PEER_EDGE_SAMPLE', 2000),
  timedEvery: Math.max(1, intFrom('BENCH_TIMED_EVERY', 1)),
  warmUp: intFrom('BENCH_WARM_UP', 300),
  batchRounds: Math.max(1, intFrom('BENCH_BATCH_ROUNDS', 5)),
};

/** Ours 1 per call ÷ memory server 1 per call, by graph size (nodes); sizes not named have none. */
const SINGLE_NODE_TARGETS: Readonly<Record<number, number>> = { 2000: 1, 10_000: 3 };
const SINGLE_EDGE_TARGETS: Readonly<Record<number, number>> = { 10_000: 10 };
/** Ours batched ÷ memory server batched, nodes and edges, at every size. */
const BATCH_TARGET = 1;
/**
 * Batched calls each batched server makes while warming up (none for 1 per call): a tenth of
 * BENCH_WARM_UP, so a JIT that settles on the single-item calls settles on these too.
 */
const batchWarmUpCalls = (batch: number): number =>
  batch === 1 ? 0 : Math.ceil(settings.warmUp / 10);

/** Untimed calls (the peer's edges past its sample) carry this many items. */
const UNTIMED_BATCH = 100;

interface Edge {
  readonly source: string;
  readonly target: string;
  readonly weight: number;
}

interface Graph {
  readonly nodes: readonly string[];
  readonly edges: readonly Edge[];
  readonly reads: readonly string[];
}

/** The graph every target of a size builds: the same node ids and the same seeded edges. */
const graphOf = (size: number): Graph => {
  const random = seededRandom(42);
  const nodes = Array.from({ length: size }, (_, i) => benchNodeId(i));
  const edges: Edge[] = Array.from({ length: size * settings.edgesPerNode }, () => ({
    source: benchNodeId(Math.floor(random() * size)),
    target: benchNodeId(Math.floor(random() * size)),
    weight: 1 + Math.floor(random() * 9),
  }));
  const readRandom = seededRandom(7);
  const reads = Array.from({ length: settings.reads }, () =>
    benchNodeId(Math.floor(readRandom() * size)),
  );
  return { nodes, edges, reads };
};

/**
 * One MCP server as the workload sees it. `batch` is how many items one timed write call
 * carries; `addNodes` / `addEdges` send the items they are given in one call.
 */
interface PeerTarget {
  readonly label: string;
  readonly batch: number;
  setUp(): Promise<void>;
  addNodes(ids: readonly string[]): Promise<void>;
  addEdges(edges: readonly Edge[]): Promise<void>;
  /** Printed once: how durable an answered write is. */
  durability(): Promise<string>;
  /** Untimed: lets background work of the writes so far finish (ours: its read model). */
  settle(): Promise<void>;
  /** Untimed: an empty graph again, for another round of the same build. */
  reset(graph: Graph): Promise<void>;
  neighbors(id: string): Promise<string[]>;
  close(): Promise<void>;
}

interface ToolAnswer {
  readonly isError?: boolean;
  readonly structuredContent?: Record<string, unknown>;
  readonly content?: readonly { type: string; text?: string }[];
}

const call = async (
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolAnswer> => {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as ToolAnswer;
  const status = result.structuredContent?.status;
  if (result.isError || status === 'error') {
    const text = (result.content ?? []).map((part) => part.text ?? '').join(' ');
    throw new Error(`${name} failed: ${text.slice(0, 500)}`);
  }
  return result;
};

const connectStdio = async (
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<Client> => {
  const client = new Client({ name: 'peer-bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: repoRoot,
    env: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    stderr: 'ignore',
  });
  await client.connect(transport);
  return client;
};

/** A batch answer whose items did not all succeed is a failed benchmark, not a slow one. */
const requireAllAdded = (name: string, answer: ToolAnswer, count: number): void => {
  const results = (answer.structuredContent?.results ?? []) as { status?: string }[];
  const added = results.filter((item) => item.status === 'success').length;
  if (results.length !== count || added !== count) {
    throw new Error(`${name}: ${String(added)} of ${String(count)} items added`);
  }
};

const oursTarget = async (batch: number): Promise<PeerTarget> => {
  const database = await createThrowawayDatabase('bench_peer');
  // Each round builds on a network of its own (the Networks tools delete nothing).
  let network = NETWORK;
  let round = 0;
  const client = await connectStdio(
    process.execPath,
    ['--import', 'tsx', 'bin/cogitave.ts', 'serve', '--stdio'],
    cliEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', COGITAVE_POLL_INTERVAL_MS: '100' }),
  );
  return {
    label:
      batch === 1
        ? 'cogitave network_* (1 per call)'
        : `cogitave network_* (${String(batch)} per call)`,
    batch,
    setUp: async () => {
      // Untimed warm-up on a network of its own: the first call of each tool loads its modules,
      // and BENCH_WARM_UP calls of each kind let the JIT settle, as the memory server's do.
      const warm = `${NETWORK}_warm_up`;
      await call(client, 'network_create', { network_name: warm });
      await call(client, 'network_add_node', { network_name: warm, node_id: 'a' });
      await call(client, 'network_add_nodes', { network_name: warm, nodes: [{ node_id: 'b' }] });
      await call(client, 'network_add_edge', { network_name: warm, source: 'a', target: 'b' });
      await call(client, 'network_add_edges', {
        network_name: warm,
        edges: [{ source: 'b', target: 'a' }],
      });
      await call(client, 'network_get_neighbors', { network_name: warm, node_id: 'a' });
      for (let i = 0; i < settings.warmUp; i += 1) {
        await call(client, 'network_add_node', { network_name: warm, node_id: `w${String(i)}` });
        await call(client, 'network_add_edge', {
          network_name: warm,
          source: 'a',
          target: `w${String(i)}`,
        });
        await call(client, 'network_get_neighbors', {
          network_name: warm,
          node_id: `w${String(i)}`,
        });
      }
      // A batched server is timed on batched calls: it warms up on them too, as the memory
      // server's one tool does whatever it carries.
      for (let round = 0; round < batchWarmUpCalls(batch); round += 1) {
        const ids = Array.from({ length: batch }, (_, i) => `b${String(round)}-${String(i)}`);
        await call(client, 'network_add_nodes', {
          network_name: warm,
          nodes: ids.map((id) => ({ node_id: id })),
        });
        await call(client, 'network_add_edges', {
          network_name: warm,
          edges: ids.map((id) => ({ source: 'a', target: id })),
        });
        await call(client, 'network_list', { limit: 1 });
      }
      await call(client, 'network_create', { network_name: network });
      await call(client, 'network_list', { limit: 1 });
    },
    reset: async () => {
      round += 1;
      network = `${NETWORK}_${String(round)}`;
      await call(client, 'network_create', { network_name: network });
      await call(client, 'network_list', { limit: 1 });
    },
    addNodes: async (ids) => {
      if (ids.length === 1) {
        await call(client, 'network_add_node', { network_name: network, node_id: ids[0] });
        return;
      }
      const answer = await call(client, 'network_add_nodes', {
        network_name: network,
        nodes: ids.map((id) => ({ node_id: id })),
      });
      requireAllAdded('network_add_nodes', answer, ids.length);
    },
    addEdges: async (edges) => {
      const [edge] = edges;
      if (edges.length === 1 && edge) {
        await call(client, 'network_add_edge', {
          network_name: network,
          source: edge.source,
          target: edge.target,
          weight: edge.weight,
        });
        return;
      }
      const answer = await call(client, 'network_add_edges', { network_name: network, edges });
      requireAllAdded('network_add_edges', answer, edges.length);
    },
    neighbors: async (id) => {
      const result = await call(client, 'network_get_neighbors', {
        network_name: network,
        node_id: id,
      });
      return result.structuredContent?.neighbors as string[];
    },
    // network_list waits until the read model has applied the newest network event.
    settle: async () => {
      await call(client, 'network_list', { limit: 1 });
    },
    durability: async () => {
      const pool = new pg.Pool({ connectionString: database.url, max: 1 });
      try {
        const { rows } = await pool.query<{ fsync: string; commit: string }>(
          "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS commit",
        );
        return `answers after its append committed on server Postgres (fsync ${rows[0]?.fsync ?? '?'}, synchronous_commit ${rows[0]?.commit ?? '?'})`;
      } finally {
        await pool.end();
      }
    },
    close: async () => {
      await client.close();
      await database.drop();
    },
  };
};

const memoryServerEntry = (): string =>
  createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

const memoryTarget = async (batch: number): Promise<PeerTarget> => {
  const dir = mkdtempSync(join(tmpdir(), 'peer-memory-'));
  const client = await connectStdio(process.execPath, [memoryServerEntry()], {
    PATH: process.env.PATH,
    MEMORY_FILE_PATH: join(dir, 'memory.jsonl'),
  });
  return {
    label: `memory server (${String(batch)} per call)`,
    batch,
    setUp: async () => {
      // The same warm-up as ours, then removed: its file is empty again when timing starts.
      const names: string[] = [];
      for (let i = 0; i < settings.warmUp; i += 1) {
        const name = `warm-up-${String(i)}`;
        names.push(name);
        await call(client, 'create_entities', {
          entities: [{ name, entityType: 'node', observations: [] }],
        });
        await call(client, 'create_relations', {
          relations: [{ from: names[0]!, to: name, relationType: 'links' }],
        });
        await call(client, 'open_nodes', { names: [name] });
      }
      for (let round = 0; round < batchWarmUpCalls(batch); round += 1) {
        const batchNames = Array.from(
          { length: batch },
          (_, i) => `warm-up-b${String(round)}-${String(i)}`,
        );
        names.push(...batchNames);
        await call(client, 'create_entities', {
          entities: batchNames.map((name) => ({ name, entityType: 'node', observations: [] })),
        });
        await call(client, 'create_relations', {
          relations: batchNames.map((name) => ({
            from: names[0]!,
            to: name,
            relationType: 'links',
          })),
        });
      }
      if (names.length > 0) await call(client, 'delete_entities', { entityNames: names });
    },
    durability: () => Promise.resolve('writes its JSONL file on every call, without fsync'),
    // Deleting the entities deletes their relations: the file is empty again.
    reset: async (graph) => {
      for (const names of chunks(graph.nodes, 1000)) {
        await call(client, 'delete_entities', { entityNames: names });
      }
    },
    settle: () => Promise.resolve(),
    addNodes: async (ids) => {
      await call(client, 'create_entities', {
        entities: ids.map((name) => ({ name, entityType: 'node', observations: [] })),
      });
    },
    addEdges: async (edges) => {
      await call(client, 'create_relations', {
        relations: edges.map((edge) => ({
          from: edge.source,
          to: edge.target,
          relationType: 'links',
        })),
      });
    },
    neighbors: async (id) => {
      const result = await call(client, 'open_nodes', { names: [id] });
      const relations = (result.structuredContent?.relations ?? []) as {
        from: string;
        to: string;
      }[];
      const seen = new Set<string>();
      for (const relation of relations) {
        if (relation.from === id) seen.add(relation.to);
        if (relation.to === id) seen.add(relation.from);
      }
      return [...seen];
    },
    close: async () => {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

interface Measured {
  readonly label: string;
  readonly batch: number;
  readonly durability: string;
  readonly nodesPerSecond: number;
  readonly edgesPerSecond: number;
  /** Edges the edge rate was timed on (the rest were added untimed). */
  readonly timedEdges: number;
  readonly nodeCallsPerSecond: number;
  readonly edgeCallsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly neighborSets: readonly string[];
}

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;

/** Items each server writes per turn: the servers take turns, so a change in load hits all. */
const ITEMS_PER_TURN = 50;

interface Clock {
  nodeMs: number;
  edgeMs: number;
  timedNodes: number;
  timedEdges: number;
  nodeCalls: number;
  edgeCalls: number;
  readonly reads: number[];
  readonly neighborSets: string[];
}

/**
 * Builds the same graph on every target, in turns of ITEMS_PER_TURN items each (a turn is
 * timed for its target alone), then reads the same neighbours from each in turn. Before its
 * turn ends, ours lets its read model catch up (untimed), so its background work does not
 * spill into the next server's turn.
 */
const measureTogether = async (
  entries: readonly { readonly target: PeerTarget; readonly timedEdges: number }[],
  graph: Graph,
  rounds: number,
): Promise<Measured[]> => {
  const clocks = entries.map((): Clock => ({
    nodeMs: 0,
    edgeMs: 0,
    timedNodes: 0,
    timedEdges: 0,
    nodeCalls: 0,
    edgeCalls: 0,
    reads: [],
    neighborSets: [],
  }));
  const log = (text: string): void => {
    process.stderr.write(`${String(graph.nodes.length)} nodes: ${text}\n`);
  };
  try {
    for (const { target } of entries) await target.setUp();
    const durability = await Promise.all(entries.map(({ target }) => target.durability()));
    const timedTurns = async <T>(
      items: readonly T[],
      limitOf: (index: number) => number,
      send: (target: PeerTarget, chunk: T[]) => Promise<void>,
      add: (clock: Clock, ms: number, calls: number, items: number) => void,
    ): Promise<void> => {
      // A turn is at least one call of the largest batch; batched servers time every turn.
      const perTurn = Math.max(ITEMS_PER_TURN, ...entries.map(({ target }) => target.batch));
      const every = perTurn > ITEMS_PER_TURN ? 1 : settings.timedEvery;
      for (let from = 0, turn = 0; from < items.length; from += perTurn, turn += 1) {
        const timed = turn % every === 0;
        for (const [index, { target }] of entries.entries()) {
          const to = Math.min(from + perTurn, timed ? limitOf(index) : items.length);
          if (to <= from) continue;
          const calls = chunks(items.slice(from, to), timed ? target.batch : UNTIMED_BATCH);
          const started = performance.now();
          for (const chunk of calls) await send(target, chunk);
          if (timed) add(clocks[index]!, performance.now() - started, calls.length, to - from);
          await target.settle();
        }
      }
    };
    for (let round = 0; round < rounds; round += 1) {
      if (round > 0) for (const { target } of entries) await target.reset(graph);
      await timedTurns(
        graph.nodes,
        () => graph.nodes.length,
        (target, ids) => target.addNodes(ids),
        (clock, ms, calls, count) => {
          clock.nodeMs += ms;
          clock.nodeCalls += calls;
          clock.timedNodes += count;
        },
      );
      log(
        `nodes: ${entries.map(({ target }, i) => `${target.label} ${(clocks[i]!.nodeMs / 1000).toFixed(1)} s`).join(', ')}`,
      );
      await timedTurns(
        graph.edges,
        (index) => entries[index]!.timedEdges,
        (target, edges) => target.addEdges(edges),
        (clock, ms, calls, count) => {
          clock.edgeMs += ms;
          clock.edgeCalls += calls;
          clock.timedEdges += count;
        },
      );
      log(
        `edges: ${entries.map(({ target }, i) => `${target.label} ${String(clocks[i]!.timedEdges)} in ${(clocks[i]!.edgeMs / 1000).toFixed(1)} s`).join(', ')}`,
      );
    }
    // The peer's edges past its sample, untimed.
    for (const { target, timedEdges } of entries) {
      for (const edges of chunks(graph.edges.slice(timedEdges), UNTIMED_BATCH)) {
        await target.addEdges(edges);
      }
      await target.settle();
    }
    for (const id of graph.reads) {
      for (const [index, { target }] of entries.entries()) {
        const started = performance.now();
        const neighbors = await target.neighbors(id);
        const clock = clocks[index]!;
        clock.reads.push(performance.now() - started);
        clock.neighborSets.push([...new Set(neighbors)].sort().join(','));
      }
    }
    return entries.map(({ target }, index): Measured => {
      const clock = clocks[index]!;
      const sorted = [...clock.reads].sort((x, y) => x - y);
      const nodeSeconds = clock.nodeMs / 1000;
      const edgeSeconds = Math.max(clock.edgeMs / 1000, 1e-9);
      return {
        label: target.label,
        batch: target.batch,
        durability: durability[index] ?? '',
        nodesPerSecond: clock.timedNodes / nodeSeconds,
        edgesPerSecond: clock.timedEdges / edgeSeconds,
        timedEdges: clock.timedEdges,
        nodeCallsPerSecond: clock.nodeCalls / nodeSeconds,
        edgeCallsPerSecond: clock.edgeCalls / edgeSeconds,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        neighborSets: clock.neighborSets,
      };
    });
  } finally {
    for (const { target } of entries) await target.close();
  }
};

const fixed = (value: number, digits = 1): string => value.toFixed(digits);
/** Ratios span orders of magnitude here: three significant digits, never a bare 0.00. */
const ratio = (value: number): string => value.toPrecision(3);

const BENCH = 'bench:peer-memory';

/** One rate of ours against the same rate of a peer in the same run, with its target if any. */
const rateFigure = (
  what: 'nodes' | 'edges',
  size: number,
  ours: Measured,
  peer: Measured,
  target: number | undefined,
): BenchFigure => {
  const value = what === 'nodes' ? ours.nodesPerSecond : ours.edgesPerSecond;
  const baseline = what === 'nodes' ? peer.nodesPerSecond : peer.edgesPerSecond;
  const sampled =
    what === 'edges' && peer.timedEdges < ours.timedEdges
      ? ` (peer timed on its first ${String(peer.timedEdges)} edges)`
      : '';
  return {
    bench: BENCH,
    figure: `${what}/s at ${String(size)} nodes, ours ${String(ours.batch)} per call vs memory server ${String(peer.batch)} per call${sampled}`,
    value,
    unit: `${what}/s`,
    baseline: { name: peer.label, value: baseline },
    ratio: value / baseline,
    ...(target === undefined
      ? {}
      : { target: `≥ ${String(target)}×`, met: value / baseline >= target }),
  };
};

const runSize = async (
  size: number,
): Promise<{ lines: string[]; figures: BenchFigure[]; agree: boolean }> => {
  const graph = graphOf(size);
  process.stderr.write(
    `graph: ${String(size)} nodes, ${String(graph.edges.length)} edges, ${String(settings.reads)} neighbour reads\n`,
  );
  const all = graph.edges.length;
  // Sampled turns already spread the peer's timed edges over the whole build.
  const peerSample =
    settings.peerEdgeSample === 0 || settings.timedEvery > 1
      ? all
      : Math.min(settings.peerEdgeSample, all);
  const [single, peerSingle] = await measureTogether(
    [
      { target: await oursTarget(1), timedEdges: all },
      ...(settings.memoryPerCall
        ? [{ target: await memoryTarget(1), timedEdges: peerSample }]
        : []),
    ],
    graph,
    1,
  );
  const [batched, peerBatched] = await measureTogether(
    [
      { target: await oursTarget(settings.batch), timedEdges: all },
      { target: await memoryTarget(settings.batch), timedEdges: all },
    ],
    graph,
    settings.batchRounds,
  );
  if (!single || !batched || !peerBatched) throw new Error('a server was not measured');
  const measured = [single, batched, ...(peerSingle ? [peerSingle] : []), peerBatched];
  const disagree = measured.flatMap((m) =>
    m.neighborSets.some((set, i) => set !== single.neighborSets[i]) ? [m.label] : [],
  );
  const figures: BenchFigure[] = [
    ...(peerSingle
      ? [
          rateFigure('nodes', size, single, peerSingle, SINGLE_NODE_TARGETS[size]),
          rateFigure('edges', size, single, peerSingle, SINGLE_EDGE_TARGETS[size]),
        ]
      : []),
    rateFigure('nodes', size, batched, peerBatched, BATCH_TARGET),
    rateFigure('edges', size, batched, peerBatched, BATCH_TARGET),
    {
      bench: BENCH,
      figure: `neighbour read p99 at ${String(size)} nodes (ratio = peer/ours), vs memory server ${String(settings.batch)} per call`,
      value: single.p99Ms,
      unit: 'ms',
      baseline: { name: peerBatched.label, value: peerBatched.p99Ms },
      ratio: peerBatched.p99Ms / single.p99Ms,
    },
  ];
  const lines = [
    `## ${String(size)} nodes, ${String(graph.edges.length)} edges, ${String(settings.reads)} reads (stdio, v1 SDK client, one call at a time; batched: ${String(settings.batchRounds)} rounds)`,
    '',
    '| server | items/call | nodes/s | node calls/s | edges/s (timed edges) | edge calls/s | neighbours p50 ms | p99 ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...measured.map(
      (m) =>
        `| ${m.label} | ${String(m.batch)} | ${fixed(m.nodesPerSecond)} | ${fixed(m.nodeCallsPerSecond)} | ${fixed(m.edgesPerSecond)} (${String(m.timedEdges)}) | ${fixed(m.edgeCallsPerSecond)} | ${fixed(m.p50Ms, 2)} | ${fixed(m.p99Ms, 2)} |`,
    ),
    '',
    'Ratios (ours / peer for rates; peer / ours for latency, above 1 means ours is faster):',
    ...figures.map(
      (figure) =>
        `- ${figure.figure}: ${ratio(figure.ratio ?? Number.NaN)}×${figure.target === undefined ? '' : ` (target ${figure.target}: ${figure.met === true ? 'met' : 'NOT met'})`}`,
    ),
    '',
    'Durability:',
    ...measured.map((m) => `- ${m.label}: ${m.durability}`),
    '',
    disagree.length === 0
      ? `Neighbour sets agree on all ${String(settings.reads)} reads.`
      : `Neighbour sets DIFFER from ours (1 per call) for: ${disagree.join(', ')}`,
    '',
  ];
  return { lines, figures, agree: disagree.length === 0 };
};

const main = async (): Promise<number> => {
  const lines = [
    `# bench:peer-memory: network_* vs @modelcontextprotocol/server-memory`,
    '',
    `- load average at start ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} on ${String(os.cpus().length)} CPUs`,
    '',
  ];
  const figures: BenchFigure[] = [];
  let agree = true;
  for (const size of settings.sizes) {
    const result = await runSize(size);
    lines.push(...result.lines);
    figures.push(...result.figures);
    agree &&= result.agree;
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  recordFigures(figures);
  return agree ? 0 : 1;
};

process.exitCode = await main();
