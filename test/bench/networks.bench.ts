/**
 * Networks benchmark: builds a network of 10,000 nodes and 20,000 edges through the service
 * layer (the calls `network_add_node` / `network_add_edge` make, each returning once the read
 * model shows it), then reads 1,000 neighbour lists (`network_get_neighbors`), on a throwaway
 * database of server Postgres. Prints nodes/s, edges/s and the neighbour-read p50/p99.
 *
 *   npm run bench:networks -- [--nodes N] [--edges N] [--reads N] [--no-wait] [--json <file>]
 *
 * `--no-wait` measures the write side alone (no read-your-writes wait per call). Environment:
 * TEST_DATABASE_URL (the admin connection the throwaway database is created through).
 *
 * `buildNetwork` and `readNeighbors` take any `NetworkBenchTarget`, so another implementation
 * of the same tools (e.g. an MCP memory server behind a client) can be measured by the same
 * workload and compared.
 */
import { UNRESTRICTED } from '../../services/access/grants.js';
import { writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createChangeFeed } from '../../projections/change-feed.js';
import { networksProjection } from '../../services/networks/read-model/projection.js';
import { createProjectionRunner } from '../../projections/runner.js';
import { createNetworksService, type NetworksService } from '../../services/networks/service.js';
import { openTestBed, silentLogger } from '../int/projections/support/fixtures.js';

/** What the workload calls: the three seed tools plus creating the network. */
export interface NetworkBenchTarget {
  createNetwork(name: string): Promise<void>;
  addNode(name: string, nodeId: string): Promise<void>;
  addEdge(name: string, source: string, target: string, weight: number): Promise<void>;
  getNeighbors(name: string, nodeId: string): Promise<readonly string[]>;
}

export interface BuildOptions {
  readonly name: string;
  readonly nodes: number;
  readonly edges: number;
  /** Seed of the edge endpoints, so every target gets the same graph. */
  readonly seed?: number;
}

export interface BuildResult {
  readonly nodes: number;
  readonly edges: number;
  readonly nodeSeconds: number;
  readonly edgeSeconds: number;
  readonly nodesPerSecond: number;
  readonly edgesPerSecond: number;
}

export interface ReadOptions {
  readonly name: string;
  readonly nodes: number;
  readonly reads: number;
  readonly seed?: number;
}

export interface ReadResult {
  readonly reads: number;
  /** Neighbours returned in total (a check that the reads did real work). */
  readonly neighbors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
}

/** mulberry32: small, fast, deterministic. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export const benchNodeId = (index: number): string => `node-${String(index).padStart(6, '0')}`;

const seconds = (startedAt: number): number => (performance.now() - startedAt) / 1000;

/** Creates the network, adds `nodes` nodes, then `edges` edges between random nodes. */
export const buildNetwork = async (
  target: NetworkBenchTarget,
  options: BuildOptions,
): Promise<BuildResult> => {
  const random = seededRandom(options.seed ?? 42);
  await target.createNetwork(options.name);
  const nodesStarted = performance.now();
  for (let i = 0; i < options.nodes; i += 1) await target.addNode(options.name, benchNodeId(i));
  const nodeSeconds = seconds(nodesStarted);
  const edgesStarted = performance.now();
  for (let i = 0; i < options.edges; i += 1) {
    const source = benchNodeId(Math.floor(random() * options.nodes));
    const targetId = benchNodeId(Math.floor(random() * options.nodes));
    await target.addEdge(options.name, source, targetId, 1 + Math.floor(random() * 9));
  }
  const edgeSeconds = seconds(edgesStarted);
  return {
    nodes: options.nodes,
    edges: options.edges,
    nodeSeconds,
    edgeSeconds,
    nodesPerSecond: options.nodes / nodeSeconds,
    edgesPerSecond: options.edges / edgeSeconds,
  };
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;

/** Reads the neighbour lists of `reads` random nodes, one at a time, timing each. */
export const readNeighbors = async (
  target: NetworkBenchTarget,
  options: ReadOptions,
): Promise<ReadResult> => {
  const random = seededRandom(options.seed ?? 7);
  const timings: number[] = [];
  let neighbors = 0;
  for (let i = 0; i < options.reads; i += 1) {
    const nodeId = benchNodeId(Math.floor(random() * options.nodes));
    const startedAt = performance.now();
    neighbors += (await target.getNeighbors(options.name, nodeId)).length;
    timings.push(performance.now() - startedAt);
  }
  const sorted = [...timings].sort((a, b) => a - b);
  return {
    reads: options.reads,
    neighbors,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    meanMs: timings.reduce((sum, ms) => sum + ms, 0) / Math.max(1, timings.length),
  };
};

/**
 * Our service as a bench target. `wait: true` is the tools' path (each write returns once the
 * read model shows it); `wait: false` calls the command handlers alone.
 */
export const serviceTarget = (
  service: NetworksService,
  options: { readonly wait: boolean; readonly actor?: string },
): NetworkBenchTarget => {
  const meta = () => ({
    commandId: randomUUID(),
    actor: options.actor ?? 'agent:bench',
    at: new Date().toISOString(),
  });
  const writes = options.wait ? service : service.commands;
  return {
    createNetwork: async (name) => {
      await writes.createNetwork({ networkName: name }, meta());
    },
    addNode: async (name, nodeId) => {
      await writes.addNode({ networkName: name, nodeId }, meta());
    },
    addEdge: async (name, source, target, weight) => {
      await writes.addEdge({ networkName: name, source, target, weight }, meta());
    },
    getNeighbors: async (name, nodeId) =>
      (await service.getNeighbors(UNRESTRICTED, name, nodeId)).neighbors,
  };
};

const positiveInt = (text: string | undefined, fallback: number, flag: string): number => {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${flag} must be a positive whole number (got "${text}")`);
  }
  return value;
};

const main = async (): Promise<void> => {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string' },
      edges: { type: 'string' },
      reads: { type: 'string' },
      'no-wait': { type: 'boolean' },
      json: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const nodes = positiveInt(values.nodes, 10_000, '--nodes');
  const edges = positiveInt(values.edges, 20_000, '--edges');
  const reads = positiveInt(values.reads, 1000, '--reads');
  const wait = values['no-wait'] !== true;

  const bed = await openTestBed('postgres', 'bench_networks', [networksProjection]);
  const runner = createProjectionRunner({
    database: bed.database,
    eventStore: bed.store,
    logger: silentLogger,
    projections: [networksProjection],
    lagProbeIntervalMs: 0,
  });
  const changes = createChangeFeed({ database: bed.database, logger: silentLogger });
  try {
    runner.start();
    await changes.ready();
    const service = createNetworksService({
      eventStore: bed.store,
      db: bed.database.pool,
      changes,
      readYourWritesTimeoutMs: 60_000,
    });
    const target = serviceTarget(service, { wait });
    const name = 'bench';
    const print = (line: string): void => {
      process.stdout.write(`${line}\n`);
    };
    print(
      `networks bench: ${nodes} nodes, ${edges} edges, ${reads} neighbour reads (server Postgres, ${wait ? 'read-your-writes per write' : 'write side only'})`,
    );
    const build = await buildNetwork(target, { name, nodes, edges });
    print(`  nodes: ${build.nodesPerSecond.toFixed(0)}/s (${build.nodeSeconds.toFixed(1)} s)`);
    print(`  edges: ${build.edgesPerSecond.toFixed(0)}/s (${build.edgeSeconds.toFixed(1)} s)`);
    // Without the per-write wait, let the read model catch up before reading.
    const head = await bed.store.readStream(`network-${name}`, {
      direction: 'backwards',
      maxCount: 1,
    });
    const last = head[0]?.position;
    if (
      last !== undefined &&
      !(await changes.waitForPosition('networks', last, { timeoutMs: 120_000 }))
    ) {
      throw new Error('the networks projection did not catch up within 120 s');
    }
    const read = await readNeighbors(target, { name, nodes, reads });
    print(
      `  neighbour reads: p50 ${read.p50Ms.toFixed(2)} ms, p99 ${read.p99Ms.toFixed(2)} ms, mean ${read.meanMs.toFixed(2)} ms (${read.neighbors} neighbours in ${read.reads} reads)`,
    );
    if (values.json) {
      writeFileSync(
        values.json,
        `${JSON.stringify({ nodes, edges, reads, wait, build, read }, null, 2)}\n`,
      );
    }
  } finally {
    await runner.stop();
    await changes.close();
    await bed.close();
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
