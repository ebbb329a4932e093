/**
 * docs_search benchmark: latency of the `docs_search` tool handler over a synthetic catalog of
 * 10,000 nodes (topic-clustered text with a Zipf vocabulary, eight labels, three products, typed
 * edges), indexed from the read model on server Postgres with the built-in embedder. Prints the
 * index build time and p50/p99 per query shape, wall clock and process CPU time (on a shared
 * machine the two part ways); the target is wall-clock p99 ≤ 15 ms. Records the headline
 * figures with `recordFigures` when BENCH_FIGURES_FILE is set.
 *
 *   npx tsx test/bench/search.bench.ts        (npm run bench:search)
 *
 * Environment: BENCH_ITERATIONS (timed calls per shape, default 300), BENCH_NODES (default
 * 10,000), BENCH_DATABASE_URL (a server database to create the throwaway one from, default
 * postgres://postgres@127.0.0.1:5432/postgres).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { GatewayServices } from '../../mcp-gateway/services.js';
import { runTool } from '../../mcp-gateway/registry.js';
import { docsSearchTool } from '../../mcp-gateway/tools/docs-search.js';
import { openDatabase } from '../../services/database/database.js';
import { migrate } from '../../services/database/migrate.js';
import { createLogger } from '../../services/runtime/logger.js';
import { createLsaEmbedder } from '../../services/search/lsa.js';
import { seededRandom } from '../../services/search/random.js';
import { createSearchService } from '../../services/search/service.js';
import { projectionMigrationSets } from '../../projections/runner.js';
import { recordFigures } from './figures.js';
import { IGNORE_WRITES } from '../support/read-your-writes.js';
import { testDatabaseName } from '../support/postgres.js';

const NODES = Number(process.env.BENCH_NODES ?? 10_000);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 30;
const TARGET_P99_MS = 15;
const TOPICS = 200;
const VOCABULARY = 6000;
const LABELS = ['Doc', 'Article', 'Unit', 'Module', 'LearningPath', 'ADR', 'Skill', 'CodeSample'];
const PRODUCTS = ['core', 'cloud', 'cli'];
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const random = seededRandom(42);
// Pronounceable synthetic words, so the analyzer (stemmer, stop words) does real work.
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ner',
  'sto',
  'vent',
  'pro',
  'jec',
  'tion',
  'ra',
  'dex',
  'quer',
  'ing',
  'ed',
  'al',
];
const word = (index: number): string => {
  let text = '';
  let n = index + 1;
  while (n > 0) {
    text += SYLLABLES[n % SYLLABLES.length] ?? 'x';
    n = Math.floor(n / SYLLABLES.length);
  }
  return text;
};
const words = Array.from({ length: VOCABULARY }, (_, i) => word(i));
// Zipf over the vocabulary; each topic draws half its words from its own 60-word slice.
const zipf = (): string =>
  words[Math.min(VOCABULARY - 1, Math.floor(VOCABULARY ** random()) - 1)] ?? 'x';
const topical = (topic: number): string =>
  random() < 0.5 ? (words[(topic * 29 + Math.floor(random() * 60)) % VOCABULARY] ?? 'x') : zipf();
const sentence = (topic: number, length: number): string =>
  Array.from({ length }, () => topical(topic)).join(' ');

interface SyntheticNode {
  uid: string;
  label: string;
  title: string;
  summary: string;
  body: string;
  product: string;
  monikers: string[];
  attributes: Record<string, unknown>;
  content_hash: string;
  last_modified: string;
  revision: number;
  position: string;
}

const synthesize = (): {
  nodes: SyntheticNode[];
  edges: {
    source_uid: string;
    edge_type: string;
    target_uid: string;
    ordinal: number;
    origin: string;
  }[];
} => {
  const nodes: SyntheticNode[] = [];
  const edges: {
    source_uid: string;
    edge_type: string;
    target_uid: string;
    ordinal: number;
    origin: string;
  }[] = [];
  for (let i = 0; i < NODES; i += 1) {
    const topic = Math.floor(random() * TOPICS);
    const label = LABELS[i % LABELS.length] ?? 'Doc';
    const body =
      label === 'CodeSample'
        ? `const ${topical(topic)}Store = create${topical(topic)}(${topical(topic)}); await ${topical(topic)}.append(${topical(topic)});`
        : `# ${sentence(topic, 4)}\n${sentence(topic, 80)}\n## ${sentence(topic, 3)}\n${sentence(topic, 80)}`;
    nodes.push({
      uid: `node-${i}`,
      label,
      title: sentence(topic, 5),
      summary: sentence(topic, 15),
      body,
      product: PRODUCTS[i % PRODUCTS.length] ?? 'core',
      monikers: i % 4 === 0 ? ['latest', '2025-10'] : ['latest'],
      attributes:
        label === 'CodeSample'
          ? { language: 'typescript', sourceUid: `node-${i - 1}`, compiled: i % 3 !== 0 }
          : {},
      content_hash: 'bench',
      last_modified: '2026-01-05T09:00:00Z',
      revision: 0,
      position: '0',
    });
    // Each node links to a few others of nearby index (same neighbourhood) and a module.
    const module = Math.floor(i / 50) * 50 + 3;
    if (i !== module)
      edges.push({
        source_uid: `node-${i}`,
        edge_type: 'partOf',
        target_uid: `node-${module}`,
        ordinal: 0,
        origin: 'frontMatter',
      });
    for (let k = 0; k < 2; k += 1) {
      const target = Math.floor(random() * NODES);
      if (target !== i)
        edges.push({
          source_uid: `node-${i}`,
          edge_type: k === 0 ? 'xref' : 'relatedTo',
          target_uid: `node-${target}`,
          ordinal: k,
          origin: 'text',
        });
    }
  }
  const seen = new Set<string>();
  return {
    nodes,
    edges: edges.filter((edge) => {
      const key = `${edge.source_uid} ${edge.edge_type} ${edge.target_uid}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    }),
  };
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;

/**
 * Query shapes; `products` restricts the caller's grant (scored with its partitions'
 * statistics and without the corpus-fitted vectors; reported apart from "all shapes").
 */
const SHAPES: readonly {
  name: string;
  make: () => Record<string, unknown>;
  products?: readonly string[];
}[] = [
  { name: '3 words', make: () => ({ query: sentence(Math.floor(random() * TOPICS), 3) }) },
  { name: '8 words', make: () => ({ query: sentence(Math.floor(random() * TOPICS), 8) }) },
  {
    name: '3 words, types + product filter',
    make: () => ({
      query: sentence(Math.floor(random() * TOPICS), 3),
      types: ['Doc', 'Article'],
      product: 'core',
    }),
  },
  {
    name: '3 words, limit 50',
    make: () => ({ query: sentence(Math.floor(random() * TOPICS), 3), limit: 50 }),
  },
  {
    name: '3 words, caller granted one product',
    make: () => ({ query: sentence(Math.floor(random() * TOPICS), 3) }),
    products: ['core'],
  },
];

const main = async (): Promise<void> => {
  const name = testDatabaseName('bench_search');
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const logger = createLogger('silent');
  const database = await openDatabase({
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    poolSize: 4,
    logger,
  });
  try {
    await migrate(
      database.pool,
      [
        ...projectionMigrationSets([]),
        {
          owner: 'projection-catalog',
          directory: new URL('../../services/catalog/read-model/migrations/', import.meta.url),
        },
      ],
      logger,
    );
    const { nodes, edges } = synthesize();
    for (let start = 0; start < nodes.length; start += 2000) {
      await database.pool.query(
        `INSERT INTO read_model.catalog_nodes SELECT * FROM jsonb_populate_recordset(NULL::read_model.catalog_nodes, $1::jsonb)`,
        [JSON.stringify(nodes.slice(start, start + 2000))],
      );
    }
    await database.pool.query(
      `INSERT INTO read_model.catalog_edges SELECT * FROM jsonb_populate_recordset(NULL::read_model.catalog_edges, $1::jsonb)`,
      [JSON.stringify(edges)],
    );
    const listeners: unknown[] = [];
    const started = performance.now();
    const search = createSearchService({
      db: database.pool,
      changes: { onChange: (listener) => (listeners.push(listener), () => undefined) },
      embedder: createLsaEmbedder(),
      logger,
      // A busy machine may take longer than a search waits by default; the build is timed.
      readyWaitMs: 600_000,
    });
    await search.ready();
    const buildMs = performance.now() - started;
    console.log(
      `catalog: ${nodes.length} nodes, ${edges.length} edges; index built from the read model in ${(buildMs / 1000).toFixed(2)} s (${search.status().embedder}); ${ITERATIONS} calls per shape after ${WARMUP} warm-up calls\n`,
    );
    const contextFor = (products: readonly string[] | '*') => ({
      services: { search, readYourWrites: IGNORE_WRITES } as unknown as GatewayServices,
      caller: {
        actor: 'bench',
        grants: { products, types: '*' as const, propose: false, writeNetworks: false },
      },
      signal: new AbortController().signal,
      progress: () => Promise.resolve(),
      now: () => new Date(),
      newId: () => 'id',
    });
    const all: number[] = [];
    const allCpu: number[] = [];
    // Wall time is the figure; process CPU time beside it tells a loaded machine (wall ≫ CPU)
    // from a slow search (wall ≈ CPU).
    console.log(
      '| query shape | p50 ms | p99 ms | CPU p50 ms | CPU p99 ms | mean results |\n|---|---|---|---|---|---|',
    );
    for (const shape of SHAPES) {
      const samples: number[] = [];
      const cpu: number[] = [];
      let results = 0;
      const context = contextFor(shape.products ?? '*');
      for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
        const args = docsSearchTool.input.parse(shape.make());
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const result = await runTool(docsSearchTool, args, context);
        const elapsed = performance.now() - t0;
        const used = process.cpuUsage(c0);
        if (i >= WARMUP) {
          samples.push(elapsed);
          cpu.push((used.user + used.system) / 1000);
          results += (result as { results: unknown[] }).results.length;
        }
      }
      if (shape.products === undefined) {
        all.push(...samples);
        allCpu.push(...cpu);
      }
      samples.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      console.log(
        `| ${shape.name} | ${percentile(samples, 0.5).toFixed(2)} | ${percentile(samples, 0.99).toFixed(2)} | ${percentile(cpu, 0.5).toFixed(2)} | ${percentile(cpu, 0.99).toFixed(2)} | ${(results / ITERATIONS).toFixed(1)} |`,
      );
    }
    all.sort((a, b) => a - b);
    allCpu.sort((a, b) => a - b);
    const p50 = percentile(all, 0.5);
    const p99 = percentile(all, 0.99);
    const cpuP99 = percentile(allCpu, 0.99);
    const met = p99 <= TARGET_P99_MS;
    console.log(
      `\nall shapes (unrestricted caller): p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 ≤ ${TARGET_P99_MS} ms: ${met ? 'met' : 'MISSED'}); CPU p50 ${percentile(allCpu, 0.5).toFixed(2)} ms, p99 ${cpuP99.toFixed(2)} ms; build ${(buildMs / 1000).toFixed(2)} s`,
    );
    recordFigures([
      { bench: 'bench:search', figure: `docs_search p50, ${NODES} nodes`, value: p50, unit: 'ms' },
      {
        bench: 'bench:search',
        figure: `docs_search p99, ${NODES} nodes`,
        value: p99,
        unit: 'ms',
        target: `p99 ≤ ${TARGET_P99_MS} ms`,
        met,
      },
      {
        bench: 'bench:search',
        figure: `docs_search CPU time p99, ${NODES} nodes`,
        value: cpuP99,
        unit: 'ms',
      },
      {
        bench: 'bench:search',
        figure: `search index build, ${NODES} nodes`,
        value: buildMs / 1000,
        unit: 's',
      },
    ]);
    await search.close();
    if (!met) process.exitCode = 1;
  } finally {
    await database.close();
    const cleanup = new pg.Client({ connectionString: ADMIN_URL });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await cleanup.end();
  }
};

await main();
