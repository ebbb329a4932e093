/**
 * Projection lag benchmark: how long after an append commits its event is (a) applied and
 * visible in the Request read model and (b) announced to a change-feed listener by NOTIFY,
 * while concurrent writers append request events as fast as they can. Server Postgres only
 * (PGlite has no NOTIFY and one session), in a throwaway database per configuration that is
 * dropped afterwards, even when the run fails or is interrupted.
 *
 *   npm run bench:lag [-- --seconds 10] [--writers 1,8] [--json <file>]
 *
 * Environment: BENCH_DATABASE_URL (a server database to create the throwaway ones from,
 * default postgres://postgres@127.0.0.1:5432/postgres).
 *
 * Everything runs in this one process, wired as `serve` wires it: writers append through the
 * Postgres event store, the projection runner (defaults of `serve`) applies the requests
 * projection and sends one NOTIFY per batch, and a `createChangeFeed` listener on its own
 * connection receives them. Times are `performance.now()`:
 * - commit: the append's promise resolved (the writer knows its event is committed);
 * - visible: the runner's `onBatch` hook for the first batch at or after the event's position
 *   (called after the batch transaction commits, so its rows are visible to every reader);
 * - notified: the first change notice at or after that position reached the listener.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  createChangeFeed,
  createProjectionRunner,
  projectionMigrationSets,
  type ChangeFeed,
  type ProjectionRunner,
} from '../../projections/index.js';
import {
  REQUESTS_PROJECTION,
  requestsProjection,
} from '../../services/requests/read-model/projection.js';
import { openDatabase, type Database } from '../../services/database/database.js';
import { migrate } from '../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../services/event-store/postgres/adapter.js';
import { comparePositions } from '../../services/event-store/position.js';
import type {
  EventToAppend,
  ExpectedRevision,
  Position,
} from '../../services/event-store/types.js';
import { requestStreamId, type RequestEvent } from '../../services/requests/events.js';
import { createLogger, redactUrl } from '../../services/runtime/logger.js';
import { Interrupted, runBench, UsageError } from './cli.js';
import { recordFigures } from './figures.js';
import { testDatabaseName } from '../support/postgres.js';

const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_WRITERS = [1, 8] as const;
const DEFAULT_SECONDS = 10;
const WARMUP_MS = 1000;
const DRAIN_TIMEOUT_MS = 60_000;
const USAGE = 'Usage: npm run bench:lag [-- --seconds <n>] [--writers <n,n,...>] [--json <file>]';

// Warnings and errors only: a stopped projection must show, progress lines must not.
const logger = createLogger('warn');

// ---------------------------------------------------------------------------------------------
// Command line

interface Settings {
  readonly seconds: number;
  readonly writers: readonly number[];
  readonly jsonFile: string | undefined;
  readonly serverUrl: string;
}

const readSettings = (): Settings => {
  let values: { seconds?: string; writers?: string; json?: string };
  try {
    ({ values } = parseArgs({
      options: {
        seconds: { type: 'string' },
        writers: { type: 'string' },
        json: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const seconds = Number(values.seconds ?? DEFAULT_SECONDS);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--seconds must be a positive number (got "${values.seconds ?? ''}")`);
  }
  const writers =
    values.writers === undefined
      ? [...DEFAULT_WRITERS]
      : values.writers.split(',').map((text) => Number(text.trim()));
  if (writers.length === 0 || writers.some((n) => !Number.isInteger(n) || n < 1 || n > 64)) {
    throw new UsageError(
      `--writers must list whole numbers from 1 to 64 (got "${values.writers ?? ''}")`,
    );
  }
  return {
    seconds,
    writers,
    jsonFile: values.json,
    serverUrl: process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL,
  };
};

// ---------------------------------------------------------------------------------------------
// Workload: each writer walks its own requests through intake and one approved stage advance,
// one event per append, each at the exact revision the previous append returned.

const STEPS = 5;

const stepEvent = (requestId: string, step: number): RequestEvent => {
  const proposalId = `${requestId}-p1`;
  switch (step) {
    case 0:
      return {
        type: 'RequestProposed',
        data: {
          requestId,
          title: `Export the audit log as CSV (${requestId})`,
          problem: 'Auditors copy rows by hand every month.',
          product: 'mcp-gateway',
          requester: 'team:audit',
          acceptanceCriteria: [
            { id: 'ac-1', text: 'The export contains every audit event of the month' },
            { id: 'ac-2', text: 'An export of 100000 events finishes in under 30 seconds' },
          ],
          links: [{ url: 'https://example.org/audit', title: 'audit notes' }],
          priority: 'high',
          proposedBy: 'agent:bench',
        },
      };
    case 1:
      return {
        type: 'IntakeIssueOpened',
        data: {
          requestId,
          repository: 'cogitave/requests',
          issueNumber: 1,
          issueUrl: 'https://github.com/cogitave/requests/issues/1',
        },
      };
    case 2:
      return {
        type: 'StageAdvanceProposed',
        data: {
          requestId,
          proposalId,
          fromStage: 'proposed',
          toStage: 'accepted',
          evidence: { notes: 'triaged' },
          rationale: 'The intake meets the Definition of Done of proposed.',
          proposedBy: 'agent:bench',
        },
      };
    case 3:
      return {
        type: 'StageAdvanceApproved',
        data: {
          requestId,
          proposalId,
          approvedBy: 'maintainer:ana',
          via: 'local',
          mergeCommitSha: null,
        },
      };
    default:
      return {
        type: 'StageAdvanced',
        data: { requestId, proposalId, fromStage: 'proposed', toStage: 'accepted' },
      };
  }
};

const toAppend = (event: RequestEvent): EventToAppend => {
  const correlationId = randomUUID();
  return {
    id: randomUUID(),
    type: event.type,
    data: event.data,
    metadata: {
      actor: event.type === 'StageAdvanceApproved' ? 'maintainer:ana' : 'agent:bench',
      correlationId,
      causationId: correlationId,
      at: new Date().toISOString(),
    },
  };
};

interface AppendRecord {
  readonly position: Position;
  readonly startedAt: number;
  readonly committedAt: number;
}

/** Runs every writer to its end, then fails with the first failure: no append is left in flight. */
const allWriters = async <T>(writers: readonly Promise<T>[]): Promise<T[]> => {
  const settled = await Promise.allSettled(writers);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
};

/** Appends until `until` (performance.now()) or the signal; records each measured append. */
const runWriter = async (
  store: PostgresEventStore,
  tag: string,
  until: number,
  signal: AbortSignal,
  record: (append: AppendRecord) => void,
): Promise<{ appends: number; requests: number }> => {
  let requests = 0;
  let step = 0;
  let requestId = '';
  let expected: ExpectedRevision = 'no_stream';
  let appends = 0;
  while (performance.now() < until) {
    if (signal.aborted) throw new Interrupted('interrupted');
    if (step === 0) {
      requests += 1;
      requestId = `req-bench-${tag}-${requests}`;
      expected = 'no_stream';
    }
    const event = toAppend(stepEvent(requestId, step));
    const startedAt = performance.now();
    const result = await store.append(requestStreamId(requestId), [event], {
      expectedRevision: expected,
    });
    const committedAt = performance.now();
    record({ position: result.position, startedAt, committedAt });
    expected = result.nextRevision;
    step = (step + 1) % STEPS;
    appends += 1;
  }
  return { appends, requests };
};

// ---------------------------------------------------------------------------------------------
// Marks: when a position became visible / was notified (both arrive in position order)

interface Mark {
  readonly position: Position;
  readonly at: number;
}

/** The time of the first mark at or after `position`, or undefined if none came. */
const reachedAt = (marks: readonly Mark[], position: Position): number | undefined => {
  let low = 0;
  let high = marks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (comparePositions(marks[middle]!.position, position) < 0) low = middle + 1;
    else high = middle;
  }
  return marks[low]?.at;
};

const covered = (marks: readonly Mark[], position: Position): boolean => {
  const last = marks.at(-1);
  return last !== undefined && comparePositions(last.position, position) >= 0;
};

// ---------------------------------------------------------------------------------------------
// Statistics

/** Nearest-rank percentile of sorted samples. */
const percentile = (sorted: Float64Array, q: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN);

interface Distribution {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const distribution = (values: readonly number[]): Distribution => {
  const sorted = Float64Array.from(values).sort();
  return {
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
  };
};

interface Result {
  readonly writers: number;
  readonly seconds: number;
  readonly appends: number;
  readonly appendsPerSec: number;
  readonly append: Distribution;
  readonly visible: Distribution;
  readonly notified: Distribution;
  /** Appends whose batch committed (or notice arrived) before the writer saw its commit. */
  readonly visibleBeforeCommitSeen: number;
  readonly notifiedBeforeCommitSeen: number;
  readonly batches: number;
  readonly eventsPerBatch: number;
  readonly readModelRequests: number;
}

// ---------------------------------------------------------------------------------------------
// One configuration in its own throwaway database

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const withThrowawayDatabase = async <T>(
  serverUrl: string,
  run: (url: string) => Promise<T>,
): Promise<T> => {
  const name = testDatabaseName('bench_lag');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    try {
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return await run(url.toString());
    } finally {
      // pg's pool.end() resolves once its clients are asked to end, not once they have: give
      // the sessions a moment to go, so FORCE below only ends what a failed run left behind.
      for (let i = 0; i < 50; i += 1) {
        const { rows } = await admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
          [name],
        );
        if ((rows[0]?.n ?? 0) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
};

interface Rig {
  readonly database: Database;
  readonly store: PostgresEventStore;
  readonly feed: ChangeFeed;
  readonly runner: ProjectionRunner;
  readonly visible: Mark[];
  readonly notified: Mark[];
  /** Batches committed and events in them since the last reset. */
  batches: number;
  batchEvents: number;
}

const openRig = async (url: string, writers: number): Promise<Rig> => {
  // The writers, plus the runner's batches, its lag probe and the store's subscription.
  const database = await openDatabase({
    databaseUrl: url,
    dataDir: 'memory://',
    poolSize: writers + 4,
    logger,
  });
  await migrate(
    database.pool,
    [eventStoreMigrations, ...projectionMigrationSets([requestsProjection])],
    logger,
  );
  const store = createPostgresEventStore({ database, logger });
  const feed = createChangeFeed({ database, logger });
  const visible: Mark[] = [];
  const notified: Mark[] = [];
  feed.onChange((signal) => {
    if (signal.kind === 'change' && signal.notice.projection === REQUESTS_PROJECTION) {
      notified.push({ position: signal.notice.position, at: performance.now() });
    }
  });
  await feed.ready();
  const rig: Rig = {
    database,
    store,
    feed,
    visible,
    notified,
    batches: 0,
    batchEvents: 0,
    runner: createProjectionRunner({
      database,
      eventStore: store,
      logger,
      projections: [requestsProjection],
      changeSink: feed,
      onBatch: (batch) => {
        if (batch.projection !== REQUESTS_PROJECTION) return;
        visible.push({ position: batch.position, at: performance.now() });
        rig.batches += 1;
        rig.batchEvents += batch.events;
      },
    }),
  };
  rig.runner.start();
  return rig;
};

const closeRig = async (rig: Rig): Promise<void> => {
  await rig.runner.stop();
  await rig.feed.close();
  await rig.store.close();
  await rig.database.close();
};

/** Waits until both the read model and the listener have reached `position`. */
const drain = async (rig: Rig, position: Position | undefined, signal: AbortSignal) => {
  if (position === undefined) return;
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (!(covered(rig.visible, position) && covered(rig.notified, position))) {
    if (signal.aborted) throw new Interrupted('interrupted');
    if (performance.now() > deadline) {
      throw new Error(
        `the projection did not reach ${position} within ${DRAIN_TIMEOUT_MS} ms: ${JSON.stringify(rig.runner.status())}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const newest = (records: readonly AppendRecord[]): Position | undefined =>
  records.reduce<Position | undefined>(
    (max, record) =>
      max === undefined || comparePositions(record.position, max) > 0 ? record.position : max,
    undefined,
  );

const runConfiguration = async (
  url: string,
  writers: number,
  settings: Settings,
  signal: AbortSignal,
): Promise<Result> => {
  const rig = await openRig(url, writers);
  try {
    await rig.runner.waitFor(REQUESTS_PROJECTION, (s) => s.state === 'caught_up', 30_000);
    const run = randomBytes(3).toString('hex');

    // Untimed warm-up: connections opened, plans cached, the runner's loop hot.
    const warm: AppendRecord[] = [];
    const warmUntil = performance.now() + WARMUP_MS;
    const warmCounts = await allWriters(
      Array.from({ length: writers }, (_, w) =>
        runWriter(rig.store, `${run}-warm-${w}`, warmUntil, signal, (r) => warm.push(r)),
      ),
    );
    await drain(rig, newest(warm), signal);

    rig.batches = 0;
    rig.batchEvents = 0;
    const records: AppendRecord[] = [];
    const started = performance.now();
    const until = started + settings.seconds * 1000;
    const counts = await allWriters(
      Array.from({ length: writers }, (_, w) =>
        runWriter(rig.store, `${run}-${w}`, until, signal, (r) => records.push(r)),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    await drain(rig, newest(records), signal);
    const batches = rig.batches;
    const batchEvents = rig.batchEvents;

    const appendMs: number[] = [];
    const visibleMs: number[] = [];
    const notifiedMs: number[] = [];
    let visibleEarly = 0;
    let notifiedEarly = 0;
    for (const record of records) {
      appendMs.push(record.committedAt - record.startedAt);
      const seen = reachedAt(rig.visible, record.position);
      const heard = reachedAt(rig.notified, record.position);
      if (seen === undefined || heard === undefined) {
        throw new Error(`position ${record.position} was never applied or notified`);
      }
      if (seen < record.committedAt) visibleEarly += 1;
      if (heard < record.committedAt) notifiedEarly += 1;
      visibleMs.push(Math.max(0, seen - record.committedAt));
      notifiedMs.push(Math.max(0, heard - record.committedAt));
    }

    // The rows are there: one per request the writers started (warm-up included).
    const { rows } = await rig.database.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM read_model.requests',
    );
    const readModelRequests = rows[0]?.n ?? 0;
    const requestsStarted = [...warmCounts, ...counts].reduce((sum, c) => sum + c.requests, 0);
    if (readModelRequests !== requestsStarted) {
      throw new Error(
        `the read model holds ${readModelRequests} requests, expected ${requestsStarted}`,
      );
    }
    const appends = counts.reduce((sum, c) => sum + c.appends, 0);
    return {
      writers,
      seconds: elapsed,
      appends,
      appendsPerSec: appends / elapsed,
      append: distribution(appendMs),
      visible: distribution(visibleMs),
      notified: distribution(notifiedMs),
      visibleBeforeCommitSeen: visibleEarly,
      notifiedBeforeCommitSeen: notifiedEarly,
      batches,
      eventsPerBatch: batches === 0 ? 0 : batchEvents / batches,
      readModelRequests,
    };
  } finally {
    await closeRig(rig);
  }
};

// ---------------------------------------------------------------------------------------------
// Report

interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly loadAverage: string;
  readonly node: string;
  readonly platform: string;
  readonly postgresServer: string;
  readonly otherActiveSessions: number;
}

/** Version, the settings that move these numbers most, and how busy the server already is. */
const describeServer = async (
  serverUrl: string,
): Promise<{ server: string; otherActive: number }> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM pg_settings
        WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'shared_buffers')
        ORDER BY name = 'server_version' DESC, name`,
    );
    const [version, ...rest] = rows;
    const settings = rest.map((row) => `${row.name}=${row.setting}`).join(', ');
    const active = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return {
      server: `${version?.setting ?? 'unknown'} (${settings})`,
      otherActive: active.rows[0]?.n ?? 0,
    };
  } finally {
    await client.end();
  }
};

const fixed = (value: number, digits: number): string =>
  Number.isFinite(value) ? value.toFixed(digits) : 'n/a';

const HEADER = [
  'writers',
  'appends',
  'appends/s',
  'append p50 ms',
  'append p99 ms',
  'visible p50 ms',
  'visible p99 ms',
  'visible max ms',
  'NOTIFY p50 ms',
  'NOTIFY p99 ms',
  'NOTIFY max ms',
  'batches',
  'events/batch',
];

const tableRow = (result: Result): string[] => [
  String(result.writers),
  String(result.appends),
  fixed(result.appendsPerSec, 0),
  fixed(result.append.p50Ms, 2),
  fixed(result.append.p99Ms, 2),
  fixed(result.visible.p50Ms, 2),
  fixed(result.visible.p99Ms, 2),
  fixed(result.visible.maxMs, 1),
  fixed(result.notified.p50Ms, 2),
  fixed(result.notified.p99Ms, 2),
  fixed(result.notified.maxMs, 1),
  String(result.batches),
  fixed(result.eventsPerBatch, 1),
];

const markdownTable = (results: readonly Result[]): string => {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const align = HEADER.map(() => '---:');
  return [line(HEADER), line(align), ...results.map((result) => line(tableRow(result)))].join('\n');
};

const printReport = (machine: Machine, settings: Settings, results: readonly Result[]): void => {
  const facts = [
    `- cpus: ${machine.cpus} × ${machine.cpuModel}; memory ${machine.memoryGiB.toFixed(1)} GiB; load average ${machine.loadAverage}`,
    `- node: ${machine.node} (${machine.platform})`,
    `- Postgres server: ${machine.postgresServer}; other active sessions at start: ${machine.otherActiveSessions}`,
    `- timing: ${settings.seconds} s per configuration after a ${WARMUP_MS} ms warm-up; a fresh database each`,
  ];
  const early = results
    .filter((r) => r.visibleBeforeCommitSeen + r.notifiedBeforeCommitSeen > 0)
    .map(
      (r) =>
        `writers=${r.writers}: ${r.visibleBeforeCommitSeen} visible / ${r.notifiedBeforeCommitSeen} notified`,
    );
  const notes = [
    '- One process, as `serve` runs it: writers append one request event per append through the Postgres ' +
      'event store (intake → issue → proposal → approval → advance, each at its exact revision); the runner ' +
      "applies the requests projection with `serve`'s defaults; a `createChangeFeed` listener on its own " +
      'connection receives the NOTIFY of each batch.',
    '- append = the `append` call; visible = append resolved → `onBatch` of the batch holding the event (its ' +
      'transaction has committed: the row is visible); NOTIFY = append resolved → its change notice received.',
    `- Appends whose batch had already committed when the writer resumed count as 0 ms${early.length > 0 ? ` (${early.join('; ')})` : ''}.`,
    '- The writers, the runner and the listener share one event loop and the CPUs with Postgres, so the lag ' +
      'includes waiting for them; a global-log read sees an event only once every older transaction of the ' +
      'whole server has ended, so other work on a shared server adds to it.',
  ];
  const text = [
    '## Machine',
    ...facts,
    '',
    '## Projection lag (requests read model, server Postgres)',
    markdownTable(results),
    '',
    ...notes,
  ];
  process.stdout.write(`${text.join('\n')}\n`);
};

// ---------------------------------------------------------------------------------------------
// Main

// Ctrl-C (runBench) stops the writers at their next append and lets the cleanup run.
const main = async (settings: Settings, signal: AbortSignal): Promise<void> => {
  const cpus = os.cpus();
  const results: Result[] = [];
  const server = await describeServer(settings.serverUrl);
  const machine: Machine = {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: os.totalmem() / 2 ** 30,
    loadAverage: os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' '),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    postgresServer: server.server,
    otherActiveSessions: server.otherActive,
  };
  for (const writers of settings.writers) {
    const result = await withThrowawayDatabase(settings.serverUrl, (url) =>
      runConfiguration(url, writers, settings, signal),
    );
    results.push(result);
    process.stderr.write(
      `writers=${writers}: ${result.appendsPerSec.toFixed(0)} appends/s, visible p50 ${fixed(result.visible.p50Ms, 2)} / p99 ${fixed(result.visible.p99Ms, 2)} ms, NOTIFY p50 ${fixed(result.notified.p50Ms, 2)} / p99 ${fixed(result.notified.p99Ms, 2)} ms\n`,
    );
  }
  printReport(machine, settings, results);
  recordFigures(
    results.flatMap((result) => [
      {
        bench: 'bench:lag',
        figure: `projection lag p50, append → row visible, ${result.writers} writers`,
        value: result.visible.p50Ms,
        unit: 'ms',
      },
      {
        bench: 'bench:lag',
        figure: `projection lag p99, append → row visible, ${result.writers} writers`,
        value: result.visible.p99Ms,
        unit: 'ms',
      },
      {
        bench: 'bench:lag',
        figure: `projection lag p99, append → NOTIFY received, ${result.writers} writers`,
        value: result.notified.p99Ms,
        unit: 'ms',
      },
    ]),
  );
  if (settings.jsonFile !== undefined) {
    writeFileSync(
      settings.jsonFile,
      `${JSON.stringify(
        {
          machine,
          settings: { ...settings, serverUrl: redactUrl(settings.serverUrl), warmupMs: WARMUP_MS },
          results,
        },
        null,
        2,
      )}\n`,
    );
  }
};

process.exitCode = await runBench({ usage: USAGE, readSettings, run: main });
