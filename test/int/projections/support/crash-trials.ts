import type pg from 'pg';
import type { EventStore, Position } from '../../../../services/event-store/types.js';
import { readCheckpoint } from '../../../../projections/checkpoints.js';
import { digestTables, type TableDigest } from '../../../../projections/digest.js';
import { replayProjection } from '../../../../projections/replay.js';
import { requestsProjection } from '../../../../services/requests/read-model/projection.js';
import { READ_MODEL_SCHEMA } from '../../../../projections/types.js';
import { killHard, spawnProjector, waitForSessionsGone } from './processes.js';

/**
 * kill -9 trials shared by the integration test and the soak script. Each trial starts a
 * projector process on the live read model, kills it with SIGKILL at a random moment (after a
 * random number of applied events, plus a random delay that lands anywhere inside a batch's
 * transaction), waits until its sessions are gone, and compares the live tables' digests with
 * those of a clean rebuild (a shadow schema replayed to exactly the same checkpoint). A final
 * run catches up to the end of the log and stops gracefully; its digests must equal the clean
 * rebuild of the whole log.
 */
export interface TrialResult {
  readonly trial: number;
  /** Events applied (checkpoint count) when the process was killed. */
  readonly eventsAtKill: number;
  readonly killDelayMs: number;
  readonly checkpoint: Position | null;
  /** Transactions the database rolled back meanwhile: the kill's open batch, if any. */
  readonly rolledBack: number;
  /** Mean batch time of the killed process (ms), to compare with the kill delay. */
  readonly meanBatchMs: number;
  readonly digestsMatch: boolean;
}

export interface CrashRunOptions {
  readonly pool: pg.Pool;
  readonly store: EventStore;
  readonly databaseUrl: string;
  readonly totalEvents: number;
  readonly trials: number;
  readonly shadowSchema: string;
  readonly random: () => number;
  readonly log?: (line: string) => void;
}

export interface CrashRunReport {
  readonly trials: TrialResult[];
  readonly final: {
    readonly eventsApplied: number;
    readonly digestsMatch: boolean;
    readonly gracefulExit: boolean;
  };
  readonly digests: TableDigest[];
}

const applied = async (pool: pg.Pool): Promise<{ position: Position | null; events: number }> => {
  const checkpoint = await readCheckpoint(pool, READ_MODEL_SCHEMA, requestsProjection.name);
  return {
    position: checkpoint?.position ?? null,
    events: Number(checkpoint?.eventsApplied ?? 0n),
  };
};

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with its seed. */
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

const rollbacks = async (pool: pg.Pool): Promise<number> => {
  const client = await pool.connect();
  try {
    // A fresh statistics snapshot: a killed backend flushes its counters when it exits.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const result = await client.query<{ n: string }>(
      'SELECT xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    client.release();
  }
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const runCrashTrials = async (options: CrashRunOptions): Promise<CrashRunReport> => {
  const { pool, store, random } = options;
  const log = options.log ?? (() => undefined);
  const results: TrialResult[] = [];
  let shadowReset = true;
  const compare = async (): Promise<{
    position: Position | null;
    events: number;
    match: boolean;
  }> => {
    const live = await applied(pool);
    if (live.position !== null) {
      await replayProjection({
        pool,
        eventStore: store,
        projection: requestsProjection,
        schema: options.shadowSchema,
        until: live.position,
        reset: shadowReset,
      });
      shadowReset = false;
    }
    const shadow = await readCheckpoint(pool, options.shadowSchema, requestsProjection.name);
    const [liveDigests, shadowDigests] = [
      await digestTables(pool, requestsProjection),
      live.position === null
        ? undefined
        : await digestTables(pool, requestsProjection, options.shadowSchema),
    ];
    const match =
      live.position === null
        ? liveDigests.every((digest) => digest.rows === 0)
        : shadow?.position === live.position &&
          JSON.stringify(liveDigests) === JSON.stringify(shadowDigests);
    return { ...live, match };
  };

  for (let trial = 1; trial <= options.trials; trial += 1) {
    const name = `projector-trial-${trial}`;
    const before = await applied(pool);
    const rolledBackBefore = await rollbacks(pool);
    // Kill points spread over the run: each trial aims somewhere in its share of the log.
    const share = options.totalEvents / (options.trials + 1);
    const target = Math.floor(share * (trial - 1 + random()));
    const projector = spawnProjector(options.databaseUrl, name);
    const killDelayMs = Math.floor(random() * 40);
    if (target > before.events) {
      await projector
        .waitFor(
          (line) => (line.batch ? before.events + line.batch.applied >= target : false),
          60_000,
        )
        .catch(() => undefined);
    } else {
      // Already past this share: kill during start-up or the first batches instead.
      await projector
        .waitFor((line) => line.status?.state === 'running', 60_000)
        .catch(() => undefined);
    }
    await sleep(killDelayMs);
    await killHard(projector);
    await waitForSessionsGone(pool, name);
    const rolledBack = (await rollbacks(pool)) - rolledBackBefore;
    const batches = projector.lines().flatMap((line) => (line.batch ? [line.batch.ms] : []));
    const meanBatchMs = batches.length ? batches.reduce((a, b) => a + b, 0) / batches.length : 0;
    const outcome = await compare();
    results.push({
      trial,
      eventsAtKill: outcome.events,
      killDelayMs,
      checkpoint: outcome.position,
      rolledBack,
      meanBatchMs: Math.round(meanBatchMs),
      digestsMatch: outcome.match,
    });
    log(
      `trial ${trial}: killed at ${outcome.events} events, ${killDelayMs} ms after a commit (batches take ~${Math.round(meanBatchMs)} ms), ${rolledBack} transaction(s) rolled back, digests ${outcome.match ? 'match' : 'DIFFER'}`,
    );
  }

  const base = (await applied(pool)).events;
  const projector = spawnProjector(options.databaseUrl, 'projector-final');
  // By count: the log's visible end (a cluster-wide horizon) can trail what was appended.
  if (base < options.totalEvents) {
    await projector.waitFor(
      (line) => (line.batch ? base + line.batch.applied >= options.totalEvents : false),
      120_000,
    );
  } else {
    await projector.waitFor((line) => line.status?.state === 'caught_up', 120_000);
  }
  projector.child.kill('SIGTERM');
  const exit = await projector.exited;
  const outcome = await compare();
  log(`final: ${outcome.events} events, digests ${outcome.match ? 'match' : 'DIFFER'}`);
  return {
    trials: results,
    final: {
      eventsApplied: outcome.events,
      digestsMatch: outcome.match,
      gracefulExit: exit.code === 0,
    },
    digests: await digestTables(pool, requestsProjection),
  };
};
