/**
 * Peer comparison: our `network_*` tools against the official MCP memory server
 * (`@modelcontextprotocol/server-memory`), both over stdio, both driven by the v1 SDK client in
 * the same run, on the same seeded graph (BENCH_NODES nodes, default 10,000; BENCH_EDGES edges
 * between random nodes, default 20,000), then BENCH_READS neighbour reads (default 1,000).
 *
 *   npm run bench:peer-memory
 *   BENCH_NODES=500 BENCH_EDGES=1000 BENCH_READS=200 npm run bench:peer-memory
 *
 * Batching rules (the same client, calls issued one after another, each awaited):
 * - ours: `network_add_node` and `network_add_edge` take one item per call (the Networks
 *   seed's shape); each returns once the read model shows the write. Neighbours:
 *   `network_get_neighbors` (one node per call).
 * - memory server, "1 per call": `create_entities` / `create_relations` with one item per call,
 *   the same rule as ours.
 * - memory server, "batched": BENCH_BATCH items per call (default 100), its own affordance.
 *   Neighbours: `open_nodes({ names: [node] })`, whose relations with either end at the node
 *   give the neighbours (one node per call).
 * Rates are printed per item and per call. BENCH_MEMORY_PER_CALL=0 skips the memory server's
 * 1-per-call build (it rewrites its whole JSONL file on every call, so it grows quadratically).
 *
 * Ours runs `tsx bin/cogitave.ts serve --stdio` on a throwaway database of server Postgres
 * (TEST_DATABASE_URL is the admin connection); the memory server keeps MEMORY_FILE_PATH in a
 * temporary folder. Headline figures go to BENCH_FIGURES_FILE when it is set.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, repoRoot } from '../support/cli.js';
import { createThrowawayDatabase } from '../support/postgres.js';
import { recordFigures } from './figures.js';
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

const settings = {
  nodes: Math.max(2, intFrom('BENCH_NODES', 10_000)),
  edges: intFrom('BENCH_EDGES', 20_000),
  reads: Math.max(1, intFrom('BENCH_READS', 1000)),
  batch: Math.max(1, intFrom('BENCH_BATCH', 100)),
  memoryPerCall: intFrom('BENCH_MEMORY_PER_CALL', 1) !== 0,
};

interface Edge {
  readonly source: string;
  readonly target: string;
  readonly weight: number;
}

/** The graph every target builds: the same node ids and the same seeded edges. */
const graph = (() => {
  const random = seededRandom(42);
  const nodes = Array.from({ length: settings.nodes }, (_, i) => benchNodeId(i));
  const edges: Edge[] = Array.from({ length: settings.edges }, () => ({
    source: benchNodeId(Math.floor(random() * settings.nodes)),
    target: benchNodeId(Math.floor(random() * settings.nodes)),
    weight: 1 + Math.floor(random() * 9),
  }));
  const readRandom = seededRandom(7);
  const reads = Array.from({ length: settings.reads }, () =>
    benchNodeId(Math.floor(readRandom() * settings.nodes)),
  );
  return { nodes, edges, reads };
})();

/** One MCP server as the workload sees it. `batch` is how many items one write call carries. */
interface PeerTarget {
  readonly label: string;
  readonly batch: number;
  setUp(): Promise<void>;
  addNodes(ids: readonly string[]): Promise<void>;
  addEdges(edges: readonly Edge[]): Promise<void>;
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

const oursTarget = async (): Promise<PeerTarget> => {
  const database = await createThrowawayDatabase('bench_peer');
  const client = await connectStdio(
    process.execPath,
    ['--import', 'tsx', 'bin/cogitave.ts', 'serve', '--stdio'],
    cliEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', COGITAVE_POLL_INTERVAL_MS: '100' }),
  );
  return {
    label: 'cogitave network_* (1 per call)',
    batch: 1,
    setUp: async () => {
      await call(client, 'network_create', { network_name: NETWORK });
    },
    addNodes: async ([id]) => {
      await call(client, 'network_add_node', { network_name: NETWORK, node_id: id });
    },
    addEdges: async ([edge]) => {
      await call(client, 'network_add_edge', {
        network_name: NETWORK,
        source: edge!.source,
        target: edge!.target,
        weight: edge!.weight,
      });
    },
    neighbors: async (id) => {
      const result = await call(client, 'network_get_neighbors', {
        network_name: NETWORK,
        node_id: id,
      });
      return result.structuredContent?.neighbors as string[];
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
    setUp: () => Promise.resolve(),
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
  readonly nodesPerSecond: number;
  readonly edgesPerSecond: number;
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

const measure = async (target: PeerTarget): Promise<Measured> => {
  const log = (text: string): void => {
    process.stderr.write(`${target.label}: ${text}\n`);
  };
  try {
    await target.setUp();
    const nodeCalls = chunks(graph.nodes, target.batch);
    let started = performance.now();
    for (const ids of nodeCalls) await target.addNodes(ids);
    const nodeSeconds = (performance.now() - started) / 1000;
    log(`${String(graph.nodes.length)} nodes in ${nodeSeconds.toFixed(1)} s`);
    const edgeCalls = chunks(graph.edges, target.batch);
    started = performance.now();
    for (const edges of edgeCalls) await target.addEdges(edges);
    const edgeSeconds = (performance.now() - started) / 1000;
    log(`${String(graph.edges.length)} edges in ${edgeSeconds.toFixed(1)} s`);
    const timings: number[] = [];
    const neighborSets: string[] = [];
    for (const id of graph.reads) {
      const readStarted = performance.now();
      const neighbors = await target.neighbors(id);
      timings.push(performance.now() - readStarted);
      neighborSets.push([...new Set(neighbors)].sort().join(','));
    }
    const sorted = [...timings].sort((a, b) => a - b);
    return {
      label: target.label,
      batch: target.batch,
      nodesPerSecond: graph.nodes.length / nodeSeconds,
      edgesPerSecond: graph.edges.length / Math.max(edgeSeconds, 1e-9),
      nodeCallsPerSecond: nodeCalls.length / nodeSeconds,
      edgeCallsPerSecond: edgeCalls.length / Math.max(edgeSeconds, 1e-9),
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      neighborSets,
    };
  } finally {
    await target.close();
  }
};

const fixed = (value: number, digits = 1): string => value.toFixed(digits);
/** Ratios span orders of magnitude here: three significant digits, never a bare 0.00. */
const ratio = (value: number): string => value.toPrecision(3);

const main = async (): Promise<number> => {
  process.stderr.write(
    `graph: ${String(settings.nodes)} nodes, ${String(settings.edges)} edges, ${String(settings.reads)} neighbour reads\n`,
  );
  const ours = await measure(await oursTarget());
  const peers: Measured[] = [];
  if (settings.memoryPerCall) peers.push(await measure(await memoryTarget(1)));
  if (settings.batch > 1) peers.push(await measure(await memoryTarget(settings.batch)));

  const disagree = peers.flatMap((peer) =>
    peer.neighborSets.some((set, i) => set !== ours.neighborSets[i]) ? [peer.label] : [],
  );

  const rows = [ours, ...peers].map(
    (m) =>
      `| ${m.label} | ${String(m.batch)} | ${fixed(m.nodesPerSecond)} | ${fixed(m.nodeCallsPerSecond)} | ${fixed(m.edgesPerSecond)} | ${fixed(m.edgeCallsPerSecond)} | ${fixed(m.p50Ms, 2)} | ${fixed(m.p99Ms, 2)} |`,
  );
  const ratios = peers.map(
    (peer) =>
      `- vs ${peer.label}: nodes/s ${ratio(ours.nodesPerSecond / peer.nodesPerSecond)}×, edges/s ${ratio(ours.edgesPerSecond / peer.edgesPerSecond)}×, neighbour p50 ${ratio(peer.p50Ms / ours.p50Ms)}× and p99 ${ratio(peer.p99Ms / ours.p99Ms)}× (peer latency / ours: above 1 means ours is faster)`,
  );
  process.stdout.write(
    [
      `## Peer comparison: network_* vs @modelcontextprotocol/server-memory (${String(settings.nodes)} nodes, ${String(settings.edges)} edges, ${String(settings.reads)} reads, stdio, v1 SDK client, one call at a time)`,
      '',
      '| server | items/call | nodes/s | node calls/s | edges/s | edge calls/s | neighbours p50 ms | p99 ms |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
      'Ratios (ours / peer for rates):',
      ...ratios,
      '',
      disagree.length === 0
        ? `Neighbour sets agree on all ${String(settings.reads)} reads.`
        : `Neighbour sets DIFFER from ours for: ${disagree.join(', ')}`,
      '',
    ].join('\n'),
  );

  recordFigures(
    peers.flatMap((peer) => [
      {
        bench: 'bench:peer-memory',
        figure: `nodes/s, ours 1 per call vs memory server ${String(peer.batch)} per call`,
        value: ours.nodesPerSecond,
        unit: 'nodes/s',
        baseline: { name: peer.label, value: peer.nodesPerSecond },
        ratio: ours.nodesPerSecond / peer.nodesPerSecond,
      },
      {
        bench: 'bench:peer-memory',
        figure: `edges/s, ours 1 per call vs memory server ${String(peer.batch)} per call`,
        value: ours.edgesPerSecond,
        unit: 'edges/s',
        baseline: { name: peer.label, value: peer.edgesPerSecond },
        ratio: ours.edgesPerSecond / peer.edgesPerSecond,
      },
      {
        bench: 'bench:peer-memory',
        figure: `neighbour read p99 (ratio = peer/ours), vs memory server ${String(peer.batch)} per call`,
        value: ours.p99Ms,
        unit: 'ms',
        baseline: { name: peer.label, value: peer.p99Ms },
        ratio: peer.p99Ms / ours.p99Ms,
      },
    ]),
  );
  return disagree.length === 0 ? 0 : 1;
};

process.exitCode = await main();
