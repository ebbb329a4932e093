/**
 * Append benchmark: the event store's `append` ("ours") beside a plain INSERT of the same rows
 * into an unindexed table ("raw"), on server Postgres and on embedded PGlite, for 1, 8 and 32
 * concurrent writers and 1 or 10 events per append.
 *
 *   npx tsx test/bench/append.bench.ts [--only postgres|pglite] [--json <file>]
 *
 * Environment: BENCH_SECONDS (timed seconds per variant and configuration, default 3),
 * BENCH_DATABASE_URL (a server database to create the throwaway one from, default
 * postgres://postgres@127.0.0.1:5432/postgres), BENCH_PGLITE_DIR (run PGlite in a temporary
 * folder created, and removed, inside this directory instead of in memory).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase, type Database } from '../../services/database/database.js';
import { migrate } from '../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../services/event-store/postgres/adapter.js';
import type { EventToAppend, ExpectedRevision } from '../../services/event-store/types.js';
import { createLogger } from '../../services/runtime/logger.js';
import { runBench, UsageError } from './cli.js';
import { recordFigures } from './figures.js';
import { testDatabaseName } from '../support/postgres.js';

type Backend = 'postgres' | 'pglite';
type Variant = 'ours' | 'raw';

const BACKENDS: readonly Backend[] = ['postgres', 'pglite'];
const WRITER_COUNTS = [1, 8, 32] as const;
const EVENTS_PER_APPEND = [1, 10] as const;
// A decider works on a few aggregates at a time; a handful per writer keeps appends on warm
// streams without every append hitting the same one.
const STREAMS_PER_WRITER = 4;
const WARMUP_MS = 200;
const TARGET_RATIO = 0.8;
const HEADLINE = { backend: 'postgres', writers: 8, eventsPerAppend: 1 } as const;
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const RAW_TABLE = 'public.bench_raw_events';
const USAGE = 'Usage: tsx test/bench/append.bench.ts [--only postgres|pglite] [--json <file>]';

// ---------------------------------------------------------------------------------------------
// Command line

interface Settings {
  readonly backends: readonly Backend[];
  readonly jsonFile: string | undefined;
  readonly seconds: number;
  readonly serverUrl: string;
  readonly pgliteParent: string | undefined;
}

const isBackend = (value: string): value is Backend =>
  (BACKENDS as readonly string[]).includes(value);

const readSettings = (): Settings => {
  let values: { only?: string | undefined; json?: string | undefined };
  try {
    ({ values } = parseArgs({
      options: { only: { type: 'string' }, json: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.only !== undefined && !isBackend(values.only)) {
    throw new UsageError(`--only must be "postgres" or "pglite" (got "${values.only}")`);
  }
  const seconds = Number(process.env.BENCH_SECONDS ?? '3');
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(
      `BENCH_SECONDS must be a positive number (got "${process.env.BENCH_SECONDS ?? ''}")`,
    );
  }
  return {
    backends: values.only === undefined ? BACKENDS : [values.only],
    jsonFile: values.json,
    seconds,
    serverUrl: process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL,
    pgliteParent: process.env.BENCH_PGLITE_DIR,
  };
};

// ---------------------------------------------------------------------------------------------
// Workload: the events a writer appends

const EVENT_TYPES = ['OrderPlaced', 'OrderLineAdded', 'PaymentAuthorised', 'OrderShipped'] as const;
const SKUS = ['SKU-10442', 'SKU-20871', 'SKU-31907', 'SKU-48815'] as const;

const itemAt = <T>(items: readonly T[], index: number): T => {
  const item = items[index % items.length];
  if (item === undefined) throw new RangeError('itemAt on an empty list');
  return item;
};

const randomInt = (below: number): number => Math.floor(Math.random() * below);

/** About 250 bytes of JSON data, with the metadata of the command that decided it. */
const makeEvent = (command: EventToAppend['metadata']): EventToAppend => {
  const quantity = 1 + randomInt(5);
  const unitPriceCents = 500 + randomInt(9500);
  return {
    id: randomUUID(),
    type: itemAt(EVENT_TYPES, randomInt(EVENT_TYPES.length)),
    data: {
      orderId: randomUUID(),
      customerId: randomUUID(),
      lines: [{ sku: itemAt(SKUS, randomInt(SKUS.length)), quantity, unitPriceCents }],
      currency: 'EUR',
      totalCents: quantity * unitPriceCents,
      channel: 'web',
      note: 'Leave at the front desk',
    },
    metadata: command,
  };
};

/** One decision's events: they share the command's actor, correlation and causation. */
const makeBatch = (size: number): EventToAppend[] => {
  const command = {
    actor: `user:${randomUUID()}`,
    correlationId: randomUUID(),
    causationId: randomUUID(),
    at: new Date().toISOString(),
  };
  return Array.from({ length: size }, () => makeEvent(command));
};

/** Builds the next append (untimed) and returns the call that performs it (timed). */
interface Writer {
  prepare(): () => Promise<void>;
}

const newStreamIds = (): string[] =>
  Array.from({ length: STREAMS_PER_WRITER }, () => `order-${randomUUID()}`);

/** Ours: the real adapter, each append with the exact revision the previous one returned. */
const oursWriter = (store: PostgresEventStore, batchSize: number): Writer => {
  const streams = newStreamIds().map((id): { id: string; expected: ExpectedRevision } => ({
    id,
    expected: 'no_stream',
  }));
  let turn = 0;
  return {
    prepare: () => {
      const stream = itemAt(streams, turn++);
      const events = makeBatch(batchSize);
      return async () => {
        const result = await store.append(stream.id, events, { expectedRevision: stream.expected });
        stream.expected = result.nextRevision;
      };
    },
  };
};

const RAW_COLUMNS = [
  'stream_id',
  'stream_revision',
  'event_id',
  'event_type',
  'data',
  'metadata',
  'hash',
];

const rawInsertSql = (rows: number): string => {
  const tuples = Array.from(
    { length: rows },
    (_, row) =>
      `(${RAW_COLUMNS.map((_column, column) => `$${row * RAW_COLUMNS.length + column + 1}`).join(', ')})`,
  );
  return `INSERT INTO ${RAW_TABLE} (${RAW_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
};

/**
 * Raw: the same rows with the same column values, one plain INSERT per append. Serialising
 * and hashing stay in the timed part because any writer has to do them.
 */
const rawWriter = (pool: pg.Pool, batchSize: number): Writer => {
  const streams = newStreamIds().map((id) => ({ id, next: 0 }));
  const sql = rawInsertSql(batchSize);
  let turn = 0;
  return {
    prepare: () => {
      const stream = itemAt(streams, turn++);
      const events = makeBatch(batchSize);
      return async () => {
        const params = events.flatMap((event, index) => {
          const data = JSON.stringify(event.data);
          const metadata = JSON.stringify(event.metadata);
          const hash = createHash('sha256').update(`${event.id}:${data}:${metadata}`).digest('hex');
          return [stream.id, stream.next + index, event.id, event.type, data, metadata, hash];
        });
        await pool.query(sql, params);
        stream.next += events.length;
      };
    },
  };
};

// ---------------------------------------------------------------------------------------------
// Measurement

interface Tally {
  appends: number;
  elapsedNs: bigint;
  latenciesMs: number[];
}

const emptyTally = (): Tally => ({ appends: 0, elapsedNs: 0n, latenciesMs: [] });

/** Runs every writer back to back until the deadline; the first failure stops the others. */
const runPhase = async (
  writers: readonly Writer[],
  durationMs: number,
  stop: AbortController,
): Promise<Tally> => {
  // PGlite answers through promises alone, so a phase never reaches the event loop's I/O
  // phase and a Ctrl-C is only seen here, between phases. Yielding inside the writer loops
  // instead would park writers until all are idle and quietly lower the concurrency.
  await yieldToEventLoop();
  stop.signal.throwIfAborted();
  const tally = emptyTally();
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(durationMs * 1e6));
  const loop = async (writer: Writer): Promise<void> => {
    while (!stop.signal.aborted && process.hrtime.bigint() < deadline) {
      const append = writer.prepare();
      const t0 = process.hrtime.bigint();
      await append();
      tally.latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      tally.appends += 1;
    }
  };
  const outcomes = await Promise.allSettled(
    writers.map((writer) =>
      loop(writer).catch((error: unknown) => {
        stop.abort();
        throw error;
      }),
    ),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  stop.signal.throwIfAborted();
  // Wall time until the last writer finished, so appends straddling the deadline are paid for.
  tally.elapsedNs = process.hrtime.bigint() - started;
  return tally;
};

const addTally = (into: Tally, from: Tally): void => {
  into.appends += from.appends;
  into.elapsedNs += from.elapsedNs;
  into.latenciesMs.push(...from.latenciesMs);
};

/** Nearest-rank percentile of sorted samples. */
const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN);

interface Figures {
  readonly appends: number;
  readonly appendsPerSec: number;
  readonly eventsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const toFigures = (tally: Tally, eventsPerAppend: number): Figures => {
  const sorted = Float64Array.from(tally.latenciesMs).sort();
  const appendsPerSec = tally.appends / (Number(tally.elapsedNs) / 1e9);
  return {
    appends: tally.appends,
    appendsPerSec,
    eventsPerSec: appendsPerSec * eventsPerAppend,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
};

interface Result {
  readonly backend: Backend;
  readonly writers: number;
  readonly eventsPerAppend: number;
  readonly ours: Figures;
  readonly raw: Figures;
  /** ours / raw, appends per second. */
  readonly ratio: number;
}

interface Target {
  readonly backend: Backend;
  readonly pool: pg.Pool;
  readonly store: PostgresEventStore;
}

/**
 * One configuration. Ours and raw run in ABBA order, half the time per slot, so a drift in
 * the machine (table growth, a checkpoint, CPU boost) does not favour whichever runs first.
 */
const runConfiguration = async (
  target: Target,
  writers: number,
  eventsPerAppend: number,
  settings: Settings,
  stop: AbortController,
): Promise<Result> => {
  const make = (variant: Variant): Writer[] =>
    Array.from({ length: writers }, () =>
      variant === 'ours'
        ? oursWriter(target.store, eventsPerAppend)
        : rawWriter(target.pool, eventsPerAppend),
    );
  const writerSets = { ours: make('ours'), raw: make('raw') };
  const tallies = { ours: emptyTally(), raw: emptyTally() };
  // Untimed warm-up: connections opened, statements and plpgsql plans cached, streams created.
  await runPhase(writerSets.ours, WARMUP_MS, stop);
  await runPhase(writerSets.raw, WARMUP_MS, stop);
  const slotMs = (settings.seconds * 1000) / 2;
  for (const variant of ['ours', 'raw', 'raw', 'ours'] as const) {
    addTally(tallies[variant], await runPhase(writerSets[variant], slotMs, stop));
  }
  const ours = toFigures(tallies.ours, eventsPerAppend);
  const raw = toFigures(tallies.raw, eventsPerAppend);
  return {
    backend: target.backend,
    writers,
    eventsPerAppend,
    ours,
    raw,
    ratio: ours.appendsPerSec / raw.appendsPerSec,
  };
};

// ---------------------------------------------------------------------------------------------
// Backends

const logger = createLogger('silent');

const createRawTable = async (pool: pg.Pool): Promise<void> => {
  // Same columns as the event log, but only an identity key: the cost floor of writing the rows.
  await pool.query(`CREATE TABLE ${RAW_TABLE} (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id text NOT NULL, stream_revision bigint NOT NULL, event_id uuid NOT NULL,
    event_type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL, hash text NOT NULL)`);
};

/** Version plus the settings that move these numbers most (durability, autovacuum's ANALYZE). */
const describeServer = async (pool: pg.Pool): Promise<string> => {
  const { rows } = await pool.query<{ name: string; setting: string }>(
    `SELECT name, current_setting(name) AS setting FROM pg_settings
      WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'autovacuum', 'shared_buffers')
      ORDER BY name = 'server_version' DESC, name`,
  );
  const [version, ...rest] = rows;
  const settings = rest.map((row) => `${row.name}=${row.setting}`).join(', ');
  return `${version?.setting ?? 'unknown'} (${settings})`;
};

const prepareSchema = async (database: Database): Promise<string> => {
  await migrate(database.pool, [eventStoreMigrations], logger);
  await createRawTable(database.pool);
  return describeServer(database.pool);
};

const runMatrix = async (
  backend: Backend,
  openWith: (poolSize: number) => Promise<Database>,
  settings: Settings,
  stop: AbortController,
  results: Result[],
): Promise<void> => {
  for (const writers of WRITER_COUNTS) {
    // A couple of spare connections beyond the writers, e.g. for the store's NOTIFY.
    const database = await openWith(writers + 2);
    const store = createPostgresEventStore({ database, logger });
    try {
      for (const eventsPerAppend of EVENTS_PER_APPEND) {
        const result = await runConfiguration(
          { backend, pool: database.pool, store },
          writers,
          eventsPerAppend,
          settings,
          stop,
        );
        results.push(result);
        process.stderr.write(
          `${backend} writers=${writers} events/append=${eventsPerAppend}: ours ${result.ours.appendsPerSec.toFixed(0)}/s, raw ${result.raw.appendsPerSec.toFixed(0)}/s, ratio ${result.ratio.toFixed(2)}\n`,
        );
      }
    } finally {
      await store.close();
      // PGlite is one shared instance across writer counts; the caller closes it.
      if (backend === 'postgres') await database.close();
    }
  }
};

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Server Postgres in a throwaway database, dropped afterwards even when the run fails. */
const benchServer = async (
  settings: Settings,
  stop: AbortController,
  results: Result[],
): Promise<string> => {
  const name = testDatabaseName('bench');
  const admin = new pg.Client({ connectionString: settings.serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    try {
      const url = new URL(settings.serverUrl);
      url.pathname = `/${name}`;
      const open = (poolSize: number): Promise<Database> =>
        openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', poolSize, logger });
      const setup = await open(2);
      const version = await prepareSchema(setup).finally(() => setup.close());
      await runMatrix('postgres', open, settings, stop, results);
      return version;
    } finally {
      // FORCE: a connection left behind by a failed run must not keep the database alive.
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
};

/** PGlite in memory, or in a temporary folder under BENCH_PGLITE_DIR (removed afterwards). */
const benchPglite = async (
  settings: Settings,
  stop: AbortController,
  results: Result[],
): Promise<string> => {
  const folder =
    settings.pgliteParent === undefined
      ? undefined
      : mkdtempSync(join(settings.pgliteParent, 'cogitave-bench-'));
  try {
    const database = await openDatabase({ dataDir: folder ?? 'memory://', poolSize: 1, logger });
    try {
      const version = await prepareSchema(database);
      // PGlite has one session whatever the pool size asked for, so the instance is shared.
      await runMatrix('pglite', () => Promise.resolve(database), settings, stop, results);
      return version;
    } finally {
      await database.close();
    }
  } finally {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  }
};

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value: number, digits: number): string =>
  Number.isFinite(value) ? value.toFixed(digits) : 'n/a';

const HEADER = [
  'backend',
  'writers',
  'events/append',
  'ours appends/s',
  'ours events/s',
  'ours p50 ms',
  'ours p99 ms',
  'raw appends/s',
  'raw p50 ms',
  'raw p99 ms',
  'ratio ours/raw (appends/s)',
];

const tableRow = (result: Result): string[] => [
  result.backend,
  String(result.writers),
  String(result.eventsPerAppend),
  fixed(result.ours.appendsPerSec, 0),
  fixed(result.ours.eventsPerSec, 0),
  fixed(result.ours.p50Ms, 2),
  fixed(result.ours.p99Ms, 2),
  fixed(result.raw.appendsPerSec, 0),
  fixed(result.raw.p50Ms, 2),
  fixed(result.raw.p99Ms, 2),
  fixed(result.ratio, 2),
];

const markdownTable = (results: readonly Result[]): string => {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const align = HEADER.map((_, index) => (index === 0 ? '---' : '---:'));
  return [line(HEADER), line(align), ...results.map((result) => line(tableRow(result)))].join('\n');
};

const findHeadline = (results: readonly Result[]): Result | undefined =>
  results.find(
    (result) =>
      result.backend === HEADLINE.backend &&
      result.writers === HEADLINE.writers &&
      result.eventsPerAppend === HEADLINE.eventsPerAppend,
  );

const headlineLine = (headline: Result | undefined): string => {
  const what = `ours/raw at ${HEADLINE.writers} writers, ${HEADLINE.eventsPerAppend} event/append, server Postgres`;
  if (!headline) return `Headline: ${what}: not measured in this run (target ≥ ${TARGET_RATIO}).`;
  const verdict =
    headline.ratio >= TARGET_RATIO
      ? 'met'
      : `NOT met, ${((1 - headline.ratio / TARGET_RATIO) * 100).toFixed(0)}% short`;
  return `Headline: ${what} = ${headline.ratio.toFixed(2)} (target ≥ ${TARGET_RATIO}: ${verdict}).`;
};

interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  readonly postgresServer?: string;
  readonly pglite?: string;
}

const printReport = (machine: Machine, settings: Settings, results: readonly Result[]): void => {
  const facts = [
    `- cpus: ${machine.cpus} × ${machine.cpuModel}`,
    `- node: ${machine.node} (${machine.platform})`,
    ...(machine.postgresServer ? [`- Postgres server: ${machine.postgresServer}`] : []),
    ...(machine.pglite ? [`- PGlite (embedded Postgres): ${machine.pglite}`] : []),
    `- timing: ${settings.seconds} s per variant and configuration (ABBA halves), ${WARMUP_MS} ms warm-up each; ` +
      `${STREAMS_PER_WRITER} streams per writer`,
  ];
  const notes = [
    '- ours = `store.append` on the Postgres adapter with the exact `nextRevision` of the previous append ' +
      '(validation, canonical-JSON hashing and NOTIFY included); raw = one parameterised INSERT of the same ' +
      'rows into a table with only an identity primary key, same pool, same writers.',
    '- latency is per append, measured around the call, so it includes waiting for a pooled connection.',
    '- PGlite is a single session: its pool has one connection, so 8 and 32 writers are serialised there ' +
      '(more writers only queue; their latency grows, throughput cannot).',
  ];
  const text = [
    '## Machine',
    ...facts,
    '',
    '## Append throughput and latency',
    markdownTable(results),
    '',
    ...notes,
    '',
    headlineLine(findHeadline(results)),
  ];
  process.stdout.write(`${text.join('\n')}\n`);
};

const writeJson = (
  file: string,
  machine: Machine,
  settings: Settings,
  results: readonly Result[],
): void => {
  const headline = findHeadline(results);
  const report = {
    machine,
    settings: {
      seconds: settings.seconds,
      warmupMs: WARMUP_MS,
      streamsPerWriter: STREAMS_PER_WRITER,
    },
    results,
    headline: { ...HEADLINE, target: TARGET_RATIO, ratio: headline?.ratio ?? null },
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
};

// ---------------------------------------------------------------------------------------------
// Main

const main = async (settings: Settings, signal: AbortSignal): Promise<void> => {
  // Ctrl-C (runBench) stops the writers, at their next append on a server, after the phase on
  // PGlite, and lets the cleanup run. A writer that fails stops the others through this
  // controller alone, so its error is reported as the failure it is.
  const stop = new AbortController();
  signal.addEventListener('abort', () => {
    stop.abort(signal.reason);
  });
  const results: Result[] = [];
  const cpus = os.cpus();
  let machine: Machine = {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
  if (settings.backends.includes('postgres')) {
    machine = { ...machine, postgresServer: await benchServer(settings, stop, results) };
  }
  if (settings.backends.includes('pglite')) {
    machine = { ...machine, pglite: await benchPglite(settings, stop, results) };
  }
  printReport(machine, settings, results);
  if (settings.jsonFile !== undefined) writeJson(settings.jsonFile, machine, settings, results);
  recordFigures(
    results.map((result) => {
      const isHeadline =
        result.backend === HEADLINE.backend &&
        result.writers === HEADLINE.writers &&
        result.eventsPerAppend === HEADLINE.eventsPerAppend;
      return {
        bench: 'bench:append',
        figure: `append, ${result.backend}, ${result.writers} writers, ${result.eventsPerAppend} event(s)/append`,
        value: result.ours.appendsPerSec,
        unit: 'appends/s',
        baseline: { name: 'raw INSERT', value: result.raw.appendsPerSec },
        ratio: result.ratio,
        ...(isHeadline ? { target: `≥ ${TARGET_RATIO}×`, met: result.ratio >= TARGET_RATIO } : {}),
      };
    }),
  );
};

process.exitCode = await runBench({ usage: USAGE, readSettings, run: main });
