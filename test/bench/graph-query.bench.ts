/**
 * query_graph benchmark: depth-4 variable-length queries through the `query_graph` tool handler
 * on a synthetic graph of 100,000 edges (20,000 nodes, out-degree 5, three edge types), on
 * server Postgres. Prints p50/p99 per query shape; the target is a depth-4 p99 ≤ 100 ms.
 *
 *   npx tsx test/bench/graph-query.bench.ts        (npm run bench:graph-query)
 *
 * Environment: BENCH_ITERATIONS (timed calls per shape, default 300), BENCH_DATABASE_URL (a
 * server database to create the throwaway one from, default postgres://postgres@127.0.0.1:5432/postgres).
 */
import pg from 'pg';
import type { GatewayServices } from '../../mcp-gateway/services.js';
import { runTool } from '../../mcp-gateway/registry.js';
import { queryGraphTool } from '../../mcp-gateway/tools/query-graph.js';
import { openDatabase } from '../../services/database/database.js';
import { migrate, type MigrationSet } from '../../services/database/migrate.js';
import type { PathStrategy } from '../../services/graph-query/compile.js';
import { createGraphQueryService } from '../../services/graph-query/service.js';
import { createLogger } from '../../services/runtime/logger.js';
import { requestsMigrations } from '../../services/requests/read-model/projection.js';
import { projectionMigrationSets } from '../../projections/runner.js';
import { recordFigures } from './figures.js';
import { IGNORE_WRITES } from '../support/read-your-writes.js';
import { testDatabaseName } from '../support/postgres.js';

const NODES = 20_000;
const EDGES = 100_000;
const TYPES = ['xref', 'relatedTo', 'dependsOn'] as const;
const LABELS = ['Doc', 'Article', 'Unit', 'Module'] as const;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const WARMUP = 30;
const TARGET_P99_MS = 100;
const STRATEGIES: readonly PathStrategy[] = ['recursive', 'unrolled'];
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const catalogMigrations: MigrationSet = {
  owner: 'projection-catalog',
  directory: new URL('../../services/catalog/read-model/migrations/', import.meta.url),
};

const SHAPES: readonly { name: string; query: string }[] = [
  {
    name: 'depth 4, any type, out',
    query: 'MATCH (a {uid: $uid})-[*1..4]->(b) RETURN DISTINCT b.uid AS uid ORDER BY uid LIMIT 100',
  },
  {
    name: 'depth 4, two types, out, count',
    query:
      'MATCH (a:Doc {uid: $uid})-[:xref|relatedTo*1..4]->(b) RETURN count(DISTINCT b) AS reached',
  },
  {
    name: 'depth 4, one type, undirected, nodes',
    query: 'MATCH (a {uid: $uid})-[:dependsOn*1..4]-(b:Unit) RETURN DISTINCT b LIMIT 100',
  },
  {
    name: 'fixed 2 hops + filter',
    query:
      'MATCH (a {uid: $uid})-[:xref]->(m)-[:relatedTo]->(b) WHERE b.title STARTS WITH $prefix RETURN a.uid, m.uid, b.uid LIMIT 100',
  },
];

/** Deterministic pseudo-random numbers, so every run queries the same graph. */
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const percentile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;

const main = async (): Promise<void> => {
  const logger = createLogger('silent');
  const name = testDatabaseName('bench_graph');
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    poolSize: 4,
    logger,
  });
  try {
    await migrate(
      database.pool,
      [...projectionMigrationSets([]), requestsMigrations, catalogMigrations],
      logger,
    );
    const setup = performance.now();
    await database.pool.query(
      `INSERT INTO read_model.catalog_nodes (uid, label, title, summary, product, monikers, attributes, content_hash, last_modified, revision, position)
       SELECT 'n' || i, ($2::text[])[1 + i % 4], 'Node ' || i, '', 'core', ARRAY['latest'], '{}', 'h', now(), 0, '0'
         FROM generate_series(0, $1::int - 1) AS i`,
      [NODES, LABELS],
    );
    // Out-degree 5 per node, targets drawn at random (no self-loops, no duplicate edges).
    const random = mulberry32(42);
    const edges = new Set<string>();
    const rows: { s: string; t: string; d: string }[] = [];
    for (let source = 0; rows.length < EDGES; source = (source + 1) % NODES) {
      const target = Math.floor(random() * NODES);
      const type = TYPES[Math.floor(random() * TYPES.length)] ?? 'xref';
      const key = `${source}|${type}|${target}`;
      if (target === source || edges.has(key)) continue;
      edges.add(key);
      rows.push({ s: `n${source}`, t: type, d: `n${target}` });
    }
    for (let i = 0; i < rows.length; i += 20_000) {
      await database.pool.query(
        `INSERT INTO read_model.catalog_edges (source_uid, edge_type, target_uid, ordinal, origin)
         SELECT e.s, e.t, e.d, 0, 'frontMatter' FROM jsonb_to_recordset($1::jsonb) AS e(s text, t text, d text)`,
        [JSON.stringify(rows.slice(i, i + 20_000))],
      );
    }
    await database.pool.query('ANALYZE read_model.catalog_nodes, read_model.catalog_edges');
    const counts = await database.pool.query<{ nodes: string; edges: string }>(
      `SELECT (SELECT count(*) FROM read_model.catalog_nodes) AS nodes,
              (SELECT count(*) FROM read_model.catalog_edges) AS edges`,
    );
    let failed = false;
    console.log(
      `graph: ${counts.rows[0]?.nodes ?? '?'} nodes, ${counts.rows[0]?.edges ?? '?'} edges (built in ${((performance.now() - setup) / 1000).toFixed(1)} s); ${ITERATIONS} calls per shape after ${WARMUP} warm-up calls`,
    );

    for (const strategy of STRATEGIES) {
      const graphQuery = createGraphQueryService({ pool: database.pool, pathStrategy: strategy });
      const services = { graphQuery, readYourWrites: IGNORE_WRITES } as unknown as GatewayServices;
      const context = {
        services,
        caller: {
          actor: 'bench',
          grants: { products: '*', types: '*', propose: false, writeNetworks: false },
        },
        signal: new AbortController().signal,
        progress: () => Promise.resolve(),
        now: () => new Date(),
        newId: () => 'id',
      } as const;
      console.log(
        `\nvariable-length paths: ${strategy}${strategy === 'recursive' ? ' (default)' : ''}`,
      );
      const pick = mulberry32(7);
      for (const shape of SHAPES) {
        const samples: number[] = [];
        let rowsSeen = 0;
        for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
          const uid = `n${Math.floor(pick() * NODES)}`;
          const started = performance.now();
          const result = await runTool(
            queryGraphTool,
            { query: shape.query, params: { uid, prefix: 'Node 1' } },
            context,
          );
          const elapsed = performance.now() - started;
          if (i >= WARMUP) {
            samples.push(elapsed);
            rowsSeen += (result as { rowCount: number }).rowCount;
          }
        }
        samples.sort((a, b) => a - b);
        const p50 = percentile(samples, 0.5);
        const p99 = percentile(samples, 0.99);
        const depth4 = shape.name.startsWith('depth 4');
        if (depth4 && strategy === 'recursive' && p99 > TARGET_P99_MS) failed = true;
        if (strategy === 'recursive') {
          recordFigures([
            {
              bench: 'bench:graph-query',
              figure: `query_graph ${shape.name} p99 (p50 ${p50.toFixed(1)} ms), ${EDGES} edges`,
              value: p99,
              unit: 'ms',
              ...(depth4 ? { target: `p99 ≤ ${TARGET_P99_MS} ms`, met: p99 <= TARGET_P99_MS } : {}),
            },
          ]);
        }
        console.log(
          `${shape.name.padEnd(40)} p50 ${p50.toFixed(2).padStart(7)} ms   p99 ${p99.toFixed(2).padStart(7)} ms   mean rows ${(rowsSeen / ITERATIONS).toFixed(1)}${depth4 ? `   (target p99 ≤ ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? 'met' : 'MISSED'})` : ''}`,
        );
      }
    }
    if (failed) process.exitCode = 1;
  } finally {
    await database.close();
    const cleanup = new pg.Client({ connectionString: ADMIN_URL });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await cleanup.end();
  }
};

await main();
