/**
 * Replay benchmark: how fast `cogitave replay` rebuilds every projection from position zero,
 * beside the floor of writing the same rows.
 *
 *   npm run bench:replay [-- --events <n>] [--workers <n>] [--rounds <n>] [--seed <n>] [--json <file>]
 *
 * In a throwaway server database (dropped at the end, also on failure or Ctrl-C):
 * 1. a synthetic Request log of `--events` events (default 1,000,000; or BENCH_EVENTS): request
 *    lifecycles (intake and its issue, stage proposals with pull requests, approvals and
 *    advances, rejected proposals, intake rejections, deferrals, withdrawals; ~10 events per
 *    request) interleaved as concurrent requests are. The events are real: hash-chained with
 *    the store's formulas and written through its fast path (`insertChained`, the multi-row
 *    INSERT of its group commit); a sample of streams is re-verified afterwards.
 * 2. ours: every registered projection rebuilt into its shadow schema exactly as `cogitave
 *    replay` does on server Postgres (`replayProjection` with `bulk`: the requests projection
 *    folds in memory and COPYs its rows, in `--workers` threads by stream partition, default
 *    one per core up to 4; projections without a bulk rebuild take batches of
 *    REPLAY_BATCH_SIZE events).
 * 3. raw: the rows that rebuild produced, COPYed (FROM STDIN, text format) into plain tables
 *    with the same columns and no index or constraint: the cost of merely writing them.
 *    Ours and raw run `--rounds` times (default 3), taking turns; each is reported by its median
 *    round, so a slow minute of the machine moves one round of one side, not the headline.
 * 4. for scale, reading: each projection's events read exactly as the rebuild reads them (the
 *    same worker threads, partitions and batches), and nothing done with them: the part of
 *    ours that no fold or write can save.
 * 5. verify: `verifyLog` over the whole log, as `cogitave verify` runs it (one pass, every
 *    event's hash recomputed): the stream chains only, then after sealing the log (timed
 *    too) against the seal and a digest of it.
 * Each step also reports its CPU seconds, of this process and of the database's server
 * processes (read from /proc when the server runs on this host): on a machine shared with
 * other work those stay put while wall times stretch.
 *
 * Environment: BENCH_EVENTS (default 1000000), BENCH_DATABASE_URL (admin connection the
 * throwaway database is created from; default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { FORWARD_STAGES, type Stage } from '../../lifecycle/stages.js';
import { digestTables } from '../../projections/digest.js';
import { YOUNG_GENERATION_MB } from '../../projections/bulk-workers.js';
import { replayProjection } from '../../projections/replay.js';
import { projectionMigrationSets } from '../../projections/runner.js';
import { dropShadow, REPLAY_BATCH_SIZE, shadowSchemaFor } from '../../projections/shadow.js';
import { copyFrom, copyTo } from '../../services/database/copy.js';
import { openDatabase, type Database } from '../../services/database/database.js';
import { migrate } from '../../services/database/migrate.js';
import {
  chainHash,
  eventContent,
  findChainBreak,
  sha256Hex,
} from '../../services/event-store/hash-chain.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../services/event-store/postgres/adapter.js';
import { insertChained, type ChainedRow } from '../../services/event-store/postgres/queries.js';
import type { EventMetadata } from '../../services/event-store/types.js';
import { auditMigrations, sealLog } from '../../services/audit/seal.js';
import { digestOfSeal } from '../../services/audit/service.js';
import { verifyLog } from '../../services/audit/verify.js';
import { requestStreamId, type RequestEvent } from '../../services/requests/events.js';
import { PROJECTIONS } from '../../bin/read-models.js';
import { createLogger } from '../../services/runtime/logger.js';
import { startModuleWorker } from '../../services/threads/module-worker.js';
import { runBench, UsageError, wholeNumber } from './cli.js';
import { recordFigures } from './figures.js';
import type { ReadWorkerData } from './replay-read.worker.js';
import { testDatabaseName } from '../support/postgres.js';

const DEFAULT_EVENTS = 1_000_000;
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGET_RATIO = 0.5;
/** Rows per fast-path INSERT while building the log. */
const APPEND_CHUNK = 2000;
/** Request streams whose chains are re-verified after the log is written. */
const VERIFY_SAMPLE = 200;
const RAW_SCHEMA = 'bench_raw';
const USAGE =
  'Usage: tsx test/bench/replay.bench.ts [--events <n>] [--workers <n>] [--rounds <n>] [--seed <n>] [--json <file>]';

// ---------------------------------------------------------------------------------------------
// Command line

interface Settings {
  readonly events: number;
  /** Worker threads of the rebuild, as `cogitave replay --workers`. */
  readonly workers: number;
  /** Turns of ours then raw; each side is reported by its median round. */
  readonly rounds: number;
  readonly seed: number;
  readonly jsonFile: string | undefined;
  readonly serverUrl: string;
}

const positiveRounds = (text: string): number => {
  const rounds = wholeNumber(text, '--rounds');
  if (rounds < 1) throw new UsageError('--rounds must be at least 1');
  return rounds;
};

const readSettings = (): Settings => {
  let values: { events?: string; seed?: string; json?: string; workers?: string; rounds?: string };
  try {
    ({ values } = parseArgs({
      options: {
        events: { type: 'string' },
        seed: { type: 'string' },
        json: { type: 'string' },
        workers: { type: 'string' },
        rounds: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const events = values.events ?? process.env.BENCH_EVENTS;
  return {
    events: events === undefined ? DEFAULT_EVENTS : wholeNumber(events, '--events / BENCH_EVENTS'),
    seed: values.seed === undefined ? 42 : wholeNumber(values.seed, '--seed'),
    workers:
      values.workers === undefined
        ? Math.min(4, os.availableParallelism())
        : wholeNumber(values.workers, '--workers'),
    rounds: values.rounds === undefined ? 3 : positiveRounds(values.rounds),
    jsonFile: values.json,
    serverUrl: process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL,
  };
};

// ---------------------------------------------------------------------------------------------
// Workload: a synthetic Request log, deterministic for a seed (event ids and commit shas aside)

/** mulberry32: small, fast, seedable. */
const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** One command's events: one append. */
type Append = RequestEvent[];

const PRODUCTS = ['docs', 'learn', 'search', 'billing', 'identity', 'mobile'] as const;
const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
const AGENTS = ['agent:intake', 'agent:pm', 'agent:dev', 'agent:qa'] as const;
const MAINTAINERS = ['maintainer:ana', 'maintainer:bo', 'maintainer:chen'] as const;
// Forward steps a request takes before the log ends (weights); ~10 events per request overall.
const STEP_WEIGHTS = [0, 0.3, 0.35, 0.2, 0.08, 0.04, 0.03] as const;

const pick = <T>(items: readonly T[], random: () => number): T => {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new RangeError('pick from an empty list');
  return item;
};

const weighted = (weights: readonly number[], random: () => number): number => {
  let r = random();
  for (const [index, weight] of weights.entries()) {
    r -= weight;
    if (r < 0) return index;
  }
  return weights.length - 1;
};

const actorOf = (event: RequestEvent): string => {
  const data = event.data as Record<string, unknown>;
  for (const key of ['proposedBy', 'approvedBy', 'rejectedBy', 'withdrawnBy']) {
    const value = data[key];
    if (typeof value === 'string') return value;
  }
  return 'github:app';
};

/** The appends of one request's life, in order. */
const lifecycle = (requestId: string, random: () => number): Append[] => {
  const requester = `team:${pick(PRODUCTS, random)}`;
  const proposer = pick(AGENTS, random);
  const appends: Append[] = [
    [
      {
        type: 'RequestProposed',
        data: {
          requestId,
          title: `Make ${pick(PRODUCTS, random)} ${pick(['faster', 'clearer', 'safer', 'cheaper'], random)} (${requestId})`,
          problem:
            'Users report that the page takes several seconds to load on slow connections and ' +
            'that the results are sometimes stale after an update; support spends hours a week on it.',
          product: pick(PRODUCTS, random),
          requester,
          acceptanceCriteria: [
            { id: 'ac-1', text: 'The page loads in under 1 s at p95 on a 3G profile' },
            { id: 'ac-2', text: 'Results reflect an update within 5 s' },
            ...(random() < 0.5
              ? [{ id: 'ac-3', text: 'Support tickets on this drop by half' }]
              : []),
          ],
          links: [{ url: `https://tracker.example.com/${requestId}`, title: 'Original report' }],
          priority: pick(PRIORITIES, random),
          proposedBy: proposer,
        },
      },
      {
        type: 'IntakeIssueOpened',
        data: {
          requestId,
          repository: 'cogitave/requests',
          issueNumber: Math.floor(random() * 90_000) + 1,
          issueUrl: `https://github.com/cogitave/requests/issues/${requestId}`,
        },
      },
    ],
  ];
  const ending = random();
  if (ending < 0.08) {
    const rejectedBy = pick(MAINTAINERS, random);
    appends.push([
      {
        type: 'IntakeRejected',
        data: { requestId, rejectedBy, via: 'local', reason: 'duplicate' },
      },
    ]);
    return appends;
  }
  let proposals = 0;
  let stage = 'proposed' as Stage;
  const advance = (toStage: Stage, evidence: Record<string, unknown>): void => {
    let proposalId = `${requestId}-p${++proposals}`;
    const propose = (): void => {
      appends.push([
        {
          type: 'StageAdvanceProposed',
          data: {
            requestId,
            proposalId,
            fromStage: stage,
            toStage,
            evidence,
            rationale: `Ready for ${toStage}: the evidence is attached`,
            proposedBy: pick(AGENTS, random),
          },
        },
      ]);
      if (random() < 0.6) {
        appends.push([
          {
            type: 'ProposalPullRequestOpened',
            data: {
              requestId,
              proposalId,
              repository: 'cogitave/requests',
              branch: `proposal/${proposalId}`,
              pullNumber: Math.floor(random() * 90_000) + 1,
              pullUrl: `https://github.com/cogitave/requests/pull/${proposalId}`,
            },
          },
        ]);
      }
    };
    propose();
    if (random() < 0.12) {
      const rejectedBy = pick(MAINTAINERS, random);
      appends.push([
        {
          type: 'StageAdvanceRejected',
          data: { requestId, proposalId, rejectedBy, via: 'github', reason: 'needs more detail' },
        },
      ]);
      proposalId = `${requestId}-p${++proposals}`;
      propose();
    }
    const approvedBy = pick(MAINTAINERS, random);
    const github = random() < 0.7;
    appends.push([
      {
        type: 'StageAdvanceApproved',
        data: {
          requestId,
          proposalId,
          approvedBy,
          via: github ? 'github' : 'local',
          mergeCommitSha: github ? randomUUID().replace(/-/g, '') : null,
        },
      },
      { type: 'StageAdvanced', data: { requestId, proposalId, fromStage: stage, toStage } },
    ]);
    stage = toStage;
  };
  const steps = weighted(STEP_WEIGHTS, random);
  for (const toStage of FORWARD_STAGES.slice(1, 1 + steps)) {
    advance(toStage, {
      notes: `Checked for ${toStage}`,
      spec: `https://docs.example.com/specs/${requestId}`,
    });
  }
  if (ending < 0.14 && stage !== 'done') {
    appends.push([
      { type: 'RequestWithdrawn', data: { requestId, withdrawnBy: requester, reason: 'obsolete' } },
    ]);
  } else if (ending < 0.2 && stage !== 'done' && stage !== 'proposed') {
    advance('deferred', { notes: 'Parked until next quarter' });
  }
  return appends;
};

interface Active {
  readonly streamId: string;
  readonly appends: Append[];
  next: number;
  revision: bigint;
  prevHash: string | null;
}

interface Workload {
  /** Requests started so far. */
  readonly requests: () => number;
  /** Chained rows for the next appends, up to `max` events; empty when the log is complete. */
  nextChunk(max: number): ChainedRow[];
}

/**
 * `total` events over lifecycles of concurrently active requests (`active` at a time, each
 * step of a random one), so a request's events are spread over a stretch of the log.
 */
const createWorkload = (options: {
  readonly total: number;
  readonly seed: number;
  readonly active?: number;
  readonly startAt?: Date;
}): Workload => {
  const random = seededRandom(options.seed);
  const slots: Active[] = [];
  let started = 0;
  let emitted = 0;
  let clock = (options.startAt ?? new Date(Date.UTC(2026, 0, 1))).getTime();
  const begin = (): Active => {
    started += 1;
    const requestId = `req-2026-${String(started).padStart(6, '0')}`;
    return {
      streamId: requestStreamId(requestId),
      appends: lifecycle(requestId, random),
      next: 0,
      revision: -1n,
      prevHash: null,
    };
  };
  for (let i = 0; i < (options.active ?? 2000); i += 1) slots.push(begin());
  return {
    requests: () => started,
    nextChunk: (max) => {
      const rows: ChainedRow[] = [];
      while (rows.length < max && emitted < options.total && slots.length > 0) {
        const slot = Math.floor(random() * slots.length);
        const request = slots[slot];
        if (!request) break;
        const append = request.appends[request.next] ?? [];
        request.next += 1;
        // The command's metadata: one actor, correlation and time for its events.
        clock += 1000 + Math.floor(random() * 4000);
        const correlationId = randomUUID();
        const first = append[0];
        const metadata: EventMetadata = {
          actor: first ? actorOf(first) : 'github:app',
          correlationId,
          causationId: correlationId,
          at: new Date(clock).toISOString(),
        };
        for (const event of append.slice(0, options.total - emitted)) {
          const id = randomUUID();
          request.revision += 1n;
          const content = Buffer.from(
            eventContent(request.streamId, {
              id,
              type: event.type,
              data: event.data,
              metadata,
            }),
            'utf8',
          );
          const hash = chainHash(request.prevHash, request.revision, sha256Hex(content));
          rows.push({
            stream_id: request.streamId,
            stream_revision: request.revision.toString(),
            event_id: id,
            event_type: event.type,
            content,
            prev_hash: request.prevHash,
            hash,
          });
          request.prevHash = hash;
          emitted += 1;
        }
        if (request.next >= request.appends.length) {
          // The log goes on with a new request in this slot.
          slots[slot] = begin();
        }
      }
      return rows;
    },
  };
};

/**
 * Writes the whole workload through the fast path, one chunk per statement (and so per
 * transaction), the next chunk built while the previous one is written. Chunks are written
 * one after another, so every stream's events enter the log in revision order.
 */
const appendWorkload = async (
  pool: pg.Pool,
  workload: Workload,
  signal: AbortSignal,
): Promise<number> => {
  let written = 0;
  let pending: Promise<unknown> = Promise.resolve();
  for (;;) {
    signal.throwIfAborted();
    const rows = workload.nextChunk(APPEND_CHUNK);
    await pending;
    if (rows.length === 0) break;
    pending = insertChained(pool, rows).then(() => {
      written += rows.length;
    });
  }
  return written;
};

// ---------------------------------------------------------------------------------------------
// Steps

const logger = createLogger('silent');

const seconds = (since: number): number => (performance.now() - since) / 1000;

interface Cpu {
  /** CPU seconds of this process (user + system). */
  readonly node: number;
  /** CPU seconds of the database's server processes; null when they cannot be read. */
  readonly postgres: number | null;
}

interface Step {
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSec: number;
  /** What the step cost in CPU: wall time alone misleads on a machine others share. */
  readonly cpu?: Cpu;
}

/** Fields of /proc/<pid>/stat after the command name; undefined when unreadable. */
const statFields = (pid: number): string[] | undefined => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  } catch {
    return undefined;
  }
};

/** CPU ticks of a local server process (utime + stime); null when unreadable. */
const processTicks = (pid: number): number | null => {
  const fields = statFields(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : null;
};

/** CPU ticks of the postmaster's ended children (cutime + cstime); null when unreadable. */
const reapedTicks = (postmaster: number | undefined): number | null => {
  const fields = postmaster === undefined ? undefined : statFields(postmaster);
  return fields ? Number(fields[13]) + Number(fields[14]) : null;
};

/**
 * Starts counting CPU time of this process and of the database's server processes: the
 * benchmark database's backends, plus what backends that ended meanwhile used (the rebuild's
 * worker threads open and close their own connections; their time is added to the
 * postmaster's children's total when they end, with that of any other server process that
 * ended meanwhile, e.g. an autovacuum worker). A backend of this database that was already
 * running and ended meanwhile counts only its time since the start.
 */
const cpuMeter = async (pool: pg.Pool): Promise<{ stop(): Promise<Cpu> }> => {
  const backends = async (): Promise<Map<number, number | null>> => {
    const { rows } = await pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
    );
    return new Map(rows.map(({ pid }) => [pid, processTicks(pid)]));
  };
  const before = await backends();
  const [someBackend] = before.keys();
  const postmaster =
    someBackend === undefined ? undefined : Number(statFields(someBackend)?.[1] ?? Number.NaN);
  const reapedBefore = reapedTicks(postmaster);
  const node = process.cpuUsage();
  return {
    stop: async () => {
      const used = process.cpuUsage(node);
      const after = await backends();
      const reapedAfter = reapedTicks(postmaster);
      let ticks: number | null =
        reapedBefore === null || reapedAfter === null ? null : reapedAfter - reapedBefore;
      for (const [pid, now] of after) {
        if (now === null || ticks === null) ticks = null;
        else ticks += now - (before.get(pid) ?? 0);
      }
      // A backend that ended meanwhile (e.g. a pool connection closed when idle) added its
      // whole life to the reaped total: what it had used before the step is not the step's.
      for (const [pid, then] of before) {
        if (after.has(pid)) continue;
        if (then === null || ticks === null) ticks = null;
        else ticks -= then;
      }
      // Linux counts in clock ticks of 1/100 s (USER_HZ).
      return {
        node: (used.user + used.system) / 1e6,
        postgres: ticks === null ? null : ticks / 100,
      };
    },
  };
};

/** The round of median wall time (the lower middle one of an even count). */
const medianRound = <T extends Step>(rounds: readonly T[]): T => {
  const sorted = [...rounds].sort((a, b) => a.seconds - b.seconds);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!median) throw new Error('no rounds were run');
  return median;
};

const step = (events: number, elapsed: number): Step => ({
  events,
  seconds: elapsed,
  eventsPerSec: events / elapsed,
});

/** Re-checks the hash chain of a sample of request streams, as `cogitave verify` would. */
const verifySample = async (store: PostgresEventStore, requests: number): Promise<number> => {
  let checked = 0;
  for (let i = 0; i < VERIFY_SAMPLE; i += 1) {
    const n = 1 + Math.floor((i * requests) / VERIFY_SAMPLE);
    const streamId = requestStreamId(`req-2026-${String(n).padStart(6, '0')}`);
    const events = await store.readStream(streamId);
    if (events.length === 0) continue;
    const broken = findChainBreak(events);
    if (broken) throw new Error(`the synthetic log is broken: ${JSON.stringify(broken)}`);
    checked += 1;
  }
  return checked;
};

/** Reads one partition of the log in a worker thread (`replay-read.worker`); resolves its count. */
const readPartition = (data: ReadWorkerData, signal: AbortSignal): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const thread = startModuleWorker(import.meta.url, 'replay-read.worker', data, {
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    const stop = (): void => {
      void thread.terminate();
    };
    signal.addEventListener('abort', stop, { once: true });
    let count: number | undefined;
    thread.once('message', (events: number) => {
      count = events;
    });
    thread.once('error', reject);
    thread.once('exit', (code) => {
      signal.removeEventListener('abort', stop);
      if (count !== undefined) resolve(count);
      else reject(new Error(`a reading worker stopped (exit code ${code}) before it finished`));
    });
  });

/**
 * Each projection's events read as the rebuild reads them, and nothing else: in `workers`
 * threads by stream partition (one thread without a server URL), with the rebuild's batches,
 * read-ahead and young generation. What a rebuild costs at the least, whatever it folds.
 */
const readOnly = async (
  database: Database,
  store: PostgresEventStore,
  workers: number,
  signal: AbortSignal,
): Promise<Step> => {
  const connectionString = database.connectionString;
  if (connectionString === undefined) throw new Error('the reading step needs a server database');
  const meter = await cpuMeter(database.pool);
  const started = performance.now();
  let events = 0;
  for (const projection of PROJECTIONS) {
    signal.throwIfAborted();
    const [last] = await store.readAll({
      direction: 'backwards',
      maxCount: 1,
      filter: projection.filter,
    });
    if (!last) continue;
    const counts = await Promise.all(
      Array.from({ length: workers }, (_, index) =>
        readPartition(
          {
            connectionString,
            filter: { ...projection.filter, partition: { count: workers, index } },
            until: last.position,
          },
          signal,
        ),
      ),
    );
    events += counts.reduce((sum, count) => sum + count, 0);
  }
  const elapsed = seconds(started);
  return { ...step(events, elapsed), cpu: await meter.stop() };
};

/** Runs `work` with the step's wall time and CPU measured; `work` returns the events done. */
const measured = async (database: Database, work: () => Promise<number>): Promise<Step> => {
  const meter = await cpuMeter(database.pool);
  const started = performance.now();
  const events = await work();
  const elapsed = seconds(started);
  return { ...step(events, elapsed), cpu: await meter.stop() };
};

interface Verification {
  /** The stream chains alone (what verify checked before the global chain existed). */
  readonly chains: Step;
  /** Sealing the whole log into the global chain. */
  readonly seal: Step;
  /** What `cogitave verify` does now: chains, seal and a digest. */
  readonly full: Step;
}

/** What `cogitave verify` does: the whole log in one pass, every hash recomputed. */
const verifyAll = async (database: Database, store: PostgresEventStore): Promise<Verification> => {
  const checked = async (options: Parameters<typeof verifyLog>[0]): Promise<number> => {
    const report = await verifyLog(options);
    if (report.problem) throw new Error(`the synthetic log is broken: ${report.problem.reason}`);
    return report.events;
  };
  const chains = await measured(database, () => checked({ eventStore: store }));
  let head: Awaited<ReturnType<typeof sealLog>> = null;
  const seal = await measured(database, async () => {
    head = await sealLog({ database, eventStore: store });
    return head ? Number(head.sequence) + 1 : 0;
  });
  const digest = { ...digestOfSeal(head, new Date()) };
  const full = await measured(database, () =>
    checked({ eventStore: store, seal: database.pool, digest: { digest, source: 'bench' } }),
  );
  return { chains, seal, full };
};

/** What `cogitave replay` does for the rebuild: every projection, from zero, into its shadow. */
const rebuild = async (
  database: Database,
  store: PostgresEventStore,
  workers: number,
  signal: AbortSignal,
): Promise<Step> => {
  for (const projection of PROJECTIONS) {
    await dropShadow(database.pool, projection, shadowSchemaFor(projection));
  }
  const meter = await cpuMeter(database.pool);
  const started = performance.now();
  let events = 0;
  for (const projection of PROJECTIONS) {
    const result = await replayProjection({
      pool: database.pool,
      eventStore: store,
      projection,
      schema: shadowSchemaFor(projection),
      batchSize: REPLAY_BATCH_SIZE,
      bulk: true,
      ...(database.connectionString !== undefined && workers > 1
        ? { parallel: { connectionString: database.connectionString, workers } }
        : {}),
      signal,
    });
    events += result.events;
  }
  const elapsed = seconds(started);
  return { ...step(events, elapsed), cpu: await meter.stop() };
};

interface RawCopy extends Step {
  readonly rows: number;
  readonly bytes: number;
}

/**
 * The rebuilt rows, read out with COPY TO (untimed), then COPYed FROM STDIN into plain tables
 * of the same columns (LIKE without indexes or constraints: the cheapest place to put them).
 */
const rawCopy = async (database: Database, events: number): Promise<RawCopy> => {
  const client = await database.pool.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${RAW_SCHEMA} CASCADE`);
    await client.query(`CREATE SCHEMA ${RAW_SCHEMA}`);
    const loads: { target: string; chunks: Buffer[] }[] = [];
    let bytes = 0;
    for (const projection of PROJECTIONS) {
      const shadow = shadowSchemaFor(projection);
      for (const table of projection.tables) {
        const target = `${RAW_SCHEMA}.${projection.name.replace(/-/g, '_')}_${table.name}`;
        await client.query(`CREATE TABLE ${target} (LIKE ${shadow}.${table.name})`);
        const chunks = await copyTo(client, `COPY ${shadow}.${table.name} TO STDOUT`);
        bytes += chunks.reduce((sum, chunk) => sum + chunk.length, 0);
        loads.push({ target, chunks });
      }
    }
    await client.query('CHECKPOINT');
    const meter = await cpuMeter(database.pool);
    const started = performance.now();
    for (const load of loads) await copyFrom(client, `COPY ${load.target} FROM STDIN`, load.chunks);
    const elapsed = seconds(started);
    const cpu = await meter.stop();
    const counted = await client.query<{ rows: string }>(
      loads.map((load) => `SELECT count(*) AS rows FROM ${load.target}`).join(' UNION ALL '),
    );
    const rows = counted.rows.reduce((sum, row) => sum + Number(row.rows), 0);
    return { ...step(events, elapsed), cpu, rows, bytes };
  } finally {
    client.release();
  }
};

// ---------------------------------------------------------------------------------------------
// Report

interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly postgres: string;
}

interface Result {
  readonly settings: Settings;
  readonly machine: Machine;
  readonly requests: number;
  readonly mix: Record<string, number>;
  readonly append: Step;
  readonly verifiedStreams: number;
  /** The median rounds. */
  readonly ours: Step;
  readonly raw: RawCopy;
  /** Every round, in the order they ran. */
  readonly rounds: readonly { readonly ours: Step; readonly raw: RawCopy }[];
  readonly read: Step;
  readonly verify: Verification;
  readonly digestSeconds: number;
  readonly rssMiB: number;
  readonly ratio: number;
}

const describeServer = async (pool: pg.Pool): Promise<string> => {
  const { rows } = await pool.query<{ name: string; setting: string }>(
    `SELECT name, current_setting(name) AS setting FROM pg_settings
      WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'shared_buffers', 'work_mem', 'max_wal_size')
      ORDER BY name = 'server_version' DESC, name`,
  );
  const [version, ...rest] = rows;
  return `${version?.setting ?? 'unknown'} (${rest.map((row) => `${row.name}=${row.setting}`).join(', ')})`;
};

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

const cpuText = (cpu: Cpu | undefined): string =>
  cpu === undefined
    ? 'n/a'
    : `${cpu.node.toFixed(1)} + ${cpu.postgres === null ? '?' : cpu.postgres.toFixed(1)}`;

const markdown = (result: Result): string => {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const { ours, raw, read } = result;
  const verdict =
    result.ratio >= TARGET_RATIO
      ? 'met'
      : `NOT met: ${(TARGET_RATIO / result.ratio).toFixed(1)}× short`;
  return [
    '## Machine',
    `- cpus: ${result.machine.cpus} × ${result.machine.cpuModel}, ${result.machine.memoryGiB} GiB`,
    `- node: ${result.machine.node} (${result.machine.platform})`,
    `- Postgres server: ${result.machine.postgres}`,
    '',
    '## Workload',
    `- ${int(result.settings.events)} Request events over ${int(result.requests)} requests (seed ${result.settings.seed}): ` +
      Object.entries(result.mix)
        .map(([type, n]) => `${type} ${int(n)}`)
        .join(', '),
    `- written through the store's fast path in ${result.append.seconds.toFixed(1)} s (${int(result.append.eventsPerSec)} events/s), ` +
      `then VACUUM ANALYZE; hash chains of ${result.verifiedStreams} sampled streams re-verified`,
    '',
    '## Rebuild from position zero',
    line(['what', 'events', 'rows written', 'seconds', 'events/s', 'vs raw']),
    line(['---', '---:', '---:', '---:', '---:', '---:']),
    line([
      `ours: \`replayProjection\` (bulk, ${result.settings.workers} worker${result.settings.workers === 1 ? '' : 's'}) into a shadow schema`,
      int(ours.events),
      int(raw.rows),
      ours.seconds.toFixed(1),
      int(ours.eventsPerSec),
      result.ratio.toFixed(2),
    ]),
    line([
      `raw: COPY of the same rows (${(raw.bytes / 2 ** 20).toFixed(0)} MiB of text) into plain tables`,
      int(raw.events),
      int(raw.rows),
      raw.seconds.toFixed(1),
      int(raw.eventsPerSec),
      '1.00',
    ]),
    line([
      `for scale: reading the events as ours does (${result.settings.workers} worker${result.settings.workers === 1 ? '' : 's'}), nothing else`,
      int(read.events),
      '0',
      read.seconds.toFixed(1),
      int(read.eventsPerSec),
      (read.eventsPerSec / raw.eventsPerSec).toFixed(2),
    ]),
    '',
    '## Verify',
    line(['what', 'events', 'seconds', 'events/s', 'CPU s (node + postgres)']),
    line(['---', '---:', '---:', '---:', '---:']),
    ...(
      [
        ['stream chains only (`verifyLog` without seal or digest)', result.verify.chains],
        ['sealing the log into the global chain (`sealLog`)', result.verify.seal],
        ['`cogitave verify`: chains, seal and a digest', result.verify.full],
      ] as const
    ).map(([what, measure]) =>
      line([
        what,
        int(measure.events),
        measure.seconds.toFixed(1),
        int(measure.eventsPerSec),
        cpuText(measure.cpu),
      ]),
    ),
    '',
    `- ${String(result.rounds.length)} round${result.rounds.length === 1 ? '' : 's'} of ours then raw, the median of each above; per round, seconds ours / raw → ratio: ${result.rounds.map((r) => `${r.ours.seconds.toFixed(1)} / ${r.raw.seconds.toFixed(1)} → ${(r.ours.eventsPerSec / r.raw.eventsPerSec).toFixed(2)}`).join(', ')}.`,
    `- ours includes reading the log, the fold, every COPY and the index builds; the shadow's digests then took ${result.digestSeconds.toFixed(1)} s (replay computes them for the live and the shadow side). Peak RSS ${int(result.rssMiB)} MiB.`,
    `- events/s of raw = the events whose rows it wrote, per second of COPY; "vs raw" divides by it.`,
    `- CPU seconds (this process, all its threads + the database server's processes, those that ended meanwhile included): ours ${cpuText(ours.cpu)}, raw ${cpuText(raw.cpu)}, reading ${cpuText(read.cpu)}; load average at the end ${os.loadavg()[0]?.toFixed(1) ?? '?'} (other work on the machine stretches wall times, not CPU seconds).`,
    '',
    `Headline: rebuild ours/raw = ${result.ratio.toFixed(2)} (target ≥ ${TARGET_RATIO}: ${verdict}).`,
  ].join('\n');
};

// ---------------------------------------------------------------------------------------------
// Main

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const run = async (settings: Settings, signal: AbortSignal): Promise<Result> => {
  const name = testDatabaseName('bench_replay');
  const admin = new pg.Client({ connectionString: settings.serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    try {
      const url = new URL(settings.serverUrl);
      url.pathname = `/${name}`;
      const database = await openDatabase({
        databaseUrl: url.toString(),
        dataDir: '',
        poolSize: 4,
        logger,
      });
      const store = createPostgresEventStore({ database, logger });
      try {
        await migrate(
          database.pool,
          [eventStoreMigrations, auditMigrations, ...projectionMigrationSets(PROJECTIONS)],
          logger,
        );
        const say = (text: string): void => {
          process.stderr.write(`${text}\n`);
        };
        say(`writing ${int(settings.events)} events…`);
        const workload = createWorkload({ total: settings.events, seed: settings.seed });
        let started = performance.now();
        const written = await appendWorkload(database.pool, workload, signal);
        const append = step(written, seconds(started));
        // A production log has long been vacuumed; without this the first reader of fresh
        // rows pays for setting their hint bits, which is not the replay's cost.
        await database.pool.query('VACUUM ANALYZE event_store.events');
        const { rows: mixRows } = await database.pool.query<{ type: string; n: string }>(
          'SELECT event_type AS type, count(*) AS n FROM event_store.events GROUP BY 1 ORDER BY 2 DESC',
        );
        const { rows: requestRows } = await database.pool.query<{ n: string }>(
          "SELECT count(DISTINCT stream_id) AS n FROM event_store.events WHERE stream_id LIKE 'request-%'",
        );
        const requests = Number(requestRows[0]?.n ?? 0);
        const verifiedStreams = await verifySample(store, requests);

        // Ours and raw each start with no dirty buffers of the steps before them.
        await database.pool.query('CHECKPOINT');
        say(`rebuilding ${PROJECTIONS.map((p) => p.name).join(', ')}…`);
        const rounds: { ours: Step; raw: RawCopy }[] = [];
        let digestSeconds = 0;
        for (let round = 1; round <= settings.rounds; round += 1) {
          if (settings.rounds > 1) say(`round ${String(round)} of ${String(settings.rounds)}…`);
          const oursRound = await rebuild(database, store, settings.workers, signal);
          if (round === 1) {
            started = performance.now();
            for (const projection of PROJECTIONS) {
              await digestTables(database.pool, projection, shadowSchemaFor(projection));
            }
            digestSeconds = seconds(started);
          }
          say('raw COPY of the same rows…');
          rounds.push({ ours: oursRound, raw: await rawCopy(database, oursRound.events) });
        }
        const ours = medianRound(rounds.map((r) => r.ours));
        const raw = medianRound(rounds.map((r) => r.raw));
        say('reading the log…');
        const read = await readOnly(database, store, settings.workers, signal);
        say('verifying the log…');
        const verify = await verifyAll(database, store);
        const cpus = os.cpus();
        return {
          settings,
          machine: {
            cpus: cpus.length,
            cpuModel: cpus[0]?.model.trim() ?? 'unknown',
            memoryGiB: Math.round(os.totalmem() / 2 ** 30),
            node: process.version,
            platform: `${process.platform} ${process.arch}`,
            postgres: await describeServer(database.pool),
          },
          requests,
          mix: Object.fromEntries(mixRows.map((row) => [row.type, Number(row.n)])),
          append,
          verifiedStreams,
          ours,
          raw,
          rounds,
          read,
          verify,
          digestSeconds,
          rssMiB: process.resourceUsage().maxRSS / 1024,
          ratio: ours.eventsPerSec / raw.eventsPerSec,
        };
      } finally {
        await store.close();
        await database.close();
      }
    } finally {
      // FORCE: a connection left behind by a failed run must not keep the database alive.
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
};

const report = (result: Result, settings: Settings): void => {
  process.stdout.write(`${markdown(result)}\n`);
  recordFigures([
    {
      bench: 'bench:replay',
      figure: `rebuild all projections from ${int(result.ours.events)} events`,
      value: result.ours.eventsPerSec,
      unit: 'events/s',
      baseline: { name: 'raw COPY', value: result.raw.eventsPerSec },
      ratio: result.ratio,
      target: `≥ ${TARGET_RATIO}×`,
      met: result.ratio >= TARGET_RATIO,
    },
    {
      bench: 'bench:replay',
      figure: `verify ${int(result.verify.full.events)} events (chains, seal, digest)`,
      value: result.verify.full.eventsPerSec,
      unit: 'events/s',
    },
  ]);
  if (settings.jsonFile !== undefined) {
    writeFileSync(settings.jsonFile, `${JSON.stringify(result, null, 2)}\n`);
  }
};

process.exitCode = await runBench({
  usage: USAGE,
  readSettings,
  run: async (settings, signal) => {
    report(await run(settings, signal), settings);
  },
  interrupted: 'interrupted; the throwaway database was dropped',
});
