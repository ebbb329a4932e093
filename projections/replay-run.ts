import os from 'node:os';
import type { Database } from '../services/database/database.js';
import type { EventStore, Position } from '../services/event-store/types.js';
import { CogitaveError, InvalidArgument } from '../services/runtime/errors.js';
import type { Logger } from '../services/runtime/logger.js';
import { ensureCheckpoint } from './checkpoints.js';
import { createShadowTables, digestTables } from './digest.js';
import { createLeaseManager, type Lease, type LeaseManager } from './leases.js';
import { replayProjection } from './replay.js';
import {
  compareDigests,
  dropShadow,
  promoteShadow,
  REPLAY_BATCH_SIZE,
  shadowSchemaFor,
  snapshotProjection,
  tryProjectionLock,
  type TableComparison,
} from './shadow.js';
import { READ_MODEL_SCHEMA, type Projection } from './types.js';

/**
 * The replay use case (`cogitave replay`): rebuild projections from the start of the log
 * into shadow schemas and compare them, table by table, with the live read model; with
 * `swap`, promote the rebuild.
 *
 * What is compared: the live projection may be ahead of any fixed point (a `serve` elsewhere
 * keeps applying), so the live checkpoint and the live digests are read first, together, in
 * one REPEATABLE READ snapshot, and the shadow is rebuilt up to exactly that checkpoint. Both
 * sides then describe the same prefix of the log, the live side is only read (no lock, no
 * pause of a running runner), and a live runner that moves on meanwhile changes nothing in
 * the comparison. (Catching the live side up to the head first would mean applying to it,
 * which is the runner's job and needs its lock.)
 */

export interface ProjectionReplayReport {
  readonly projection: string;
  /** The live checkpoint both sides were compared at; null: nothing applied yet. */
  readonly position: Position | null;
  readonly events: number;
  readonly seconds: number;
  readonly tables: readonly TableComparison[];
  readonly equal: boolean;
  readonly swapped: boolean;
}

/** Progress of one projection's rebuild, for a caller that shows it. */
export interface ReplayProgress {
  update(events: number): void;
  stop(): void;
}

export interface ReplayRunOptions {
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly projections: readonly Projection[];
  /** Promote each rebuild to live (refused while another process applies the projection). */
  readonly swap: boolean;
  /** Keep an unpromoted shadow schema for inspection. */
  readonly keep: boolean;
  /** Worker threads of a bulk rebuild (server Postgres with the Postgres event store). */
  readonly workers: number;
  /** Called when a rebuild starts, with the events the live side applied. */
  readonly progress?: (projection: string, total: number) => ReplayProgress;
}

/** Most worker threads a rebuild takes: past the cores, threads only contend. */
export const MAX_REPLAY_WORKERS = 16;

/**
 * Threads for a rebuild by default: one per core up to four. The database's server
 * processes need cores too, so past that the fold rarely gets faster.
 */
export const defaultReplayWorkers = (): number => Math.min(4, os.availableParallelism());

/** The projections named (all of them for none), or InvalidArgument naming the unknown. */
export const selectProjections = (
  names: readonly string[],
  known: readonly Projection[],
): Projection[] => {
  const wanted = [...new Set(names)];
  if (wanted.length === 0) return [...known];
  const unknown = wanted.filter((name) => !known.some((p) => p.name === name));
  if (unknown.length > 0) {
    throw new InvalidArgument(
      `unknown projection${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; known: ${known.map((projection) => projection.name).join(', ')}`,
    );
  }
  return known.filter((projection) => wanted.includes(projection.name));
};

const NO_PROGRESS: ReplayProgress = { update: () => undefined, stop: () => undefined };

const replayOne = async (
  options: ReplayRunOptions,
  projection: Projection,
): Promise<ProjectionReplayReport> => {
  const { database, eventStore } = options;
  const { pool } = database;
  const shadow = shadowSchemaFor(projection);
  const live = await snapshotProjection(pool, projection);
  // A fresh schema every time: a leftover shadow (an interrupted run, older columns) is
  // dropped, and a new table loads faster than one emptied row by row.
  await dropShadow(pool, projection, shadow);
  let swapped = false;
  try {
    const started = performance.now();
    let events = 0;
    if (live.position === null) {
      // Nothing applied live: the comparison is of two empty projections.
      await createShadowTables(pool, projection, shadow);
      await ensureCheckpoint(pool, shadow, projection.name);
    } else {
      const progress =
        options.progress?.(projection.name, Number(live.eventsApplied)) ?? NO_PROGRESS;
      try {
        ({ events } = await replayProjection({
          pool,
          eventStore,
          projection,
          schema: shadow,
          until: live.position,
          batchSize: REPLAY_BATCH_SIZE,
          // COPY needs server Postgres; the workers read the log with their own Postgres
          // event store, so they need the log to be in that database too.
          bulk: database.kind === 'postgres',
          ...(database.connectionString !== undefined && eventStore.kind === 'postgres'
            ? {
                parallel: {
                  connectionString: database.connectionString,
                  workers: options.workers,
                },
              }
            : {}),
          onProgress: (done) => {
            progress.update(done.events);
          },
        }));
      } finally {
        progress.stop();
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const tables = compareDigests(live.digests, await digestTables(pool, projection, shadow));
    if (options.swap) {
      await promoteShadow(pool, projection, shadow, { notify: database.kind === 'postgres' });
      swapped = true;
    }
    return {
      projection: projection.name,
      position: live.position,
      events,
      seconds,
      tables,
      equal: tables.every((table) => table.equal),
      swapped,
    };
  } finally {
    // Promoted tables are live now; what is left of the shadow (its copies of shared tables)
    // goes, and so does an unpromoted shadow unless it is kept for inspection.
    if (swapped || !options.keep) {
      // Not masking the error that got here, if any.
      await dropShadow(pool, projection, shadow).catch((error: unknown) => {
        options.logger.warn({ err: error, schema: shadow }, 'could not drop the shadow schema');
      });
    }
  }
};

/**
 * Takes, before any work, the locks a run needs: each shadow's (one replay of a projection
 * at a time) and, with `swap`, each live projection's (no runner applies it meanwhile).
 */
const takeLocks = async (
  options: ReplayRunOptions,
  leases: LeaseManager,
  locks: Lease[],
): Promise<void> => {
  for (const projection of options.projections) {
    const shadow = shadowSchemaFor(projection);
    const shadowLock = await tryProjectionLock(leases, shadow, projection);
    if (!shadowLock) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `another "cogitave replay" of projection "${projection.name}" is running (it holds the lock on ${shadow}.${projection.name}); wait for it to finish`,
      );
    }
    locks.push(shadowLock);
    if (!options.swap) continue;
    const liveLock = await tryProjectionLock(leases, READ_MODEL_SCHEMA, projection);
    if (!liveLock) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `projection "${projection.name}" is being applied by another process (it holds the runner's lock on ${READ_MODEL_SCHEMA}.${projection.name}); stop that process (e.g. "cogitave serve") and run "cogitave replay --swap" again`,
      );
    }
    locks.push(liveLock);
  }
};

/** Rebuilds and compares each projection in turn, holding every lock the run needs. */
export const runReplay = async (options: ReplayRunOptions): Promise<ProjectionReplayReport[]> => {
  if (
    !Number.isSafeInteger(options.workers) ||
    options.workers < 1 ||
    options.workers > MAX_REPLAY_WORKERS
  ) {
    throw new InvalidArgument(`workers must be a whole number from 1 to ${MAX_REPLAY_WORKERS}`);
  }
  const leases = createLeaseManager({ database: options.database, logger: options.logger });
  const locks: Lease[] = [];
  try {
    await takeLocks(options, leases, locks);
    const reports: ProjectionReplayReport[] = [];
    for (const projection of options.projections) {
      reports.push(await replayOne(options, projection));
    }
    return reports;
  } finally {
    for (const lock of locks) await lock.release();
    await leases.close();
  }
};
