import cliProgress from 'cli-progress';
import { Command, Option } from 'commander';
import os from 'node:os';
import type { Database } from '../../services/database/database.js';
import type { EventStore, Position } from '../../services/event-store/types.js';
import { CogitaveError, InvalidArgument } from '../../services/runtime/errors.js';
import { PROJECTIONS } from '../../projections/registry.js';
import type { Logger } from '../../services/runtime/logger.js';
import { ensureCheckpoint } from '../../projections/checkpoints.js';
import { createShadowTables, digestTables } from '../../projections/digest.js';
import { createLeaseManager, type Lease, type LeaseManager } from '../../projections/leases.js';
import { replayProjection } from '../../projections/replay.js';
import {
  compareDigests,
  dropShadow,
  promoteShadow,
  REPLAY_BATCH_SIZE,
  shadowSchemaFor,
  snapshotProjection,
  tryProjectionLock,
  type TableComparison,
} from '../../projections/shadow.js';
import { READ_MODEL_SCHEMA, type Projection } from '../../projections/types.js';
import { parseCount, withApp } from './context.js';

/**
 * `cogitave replay`: rebuild projections from the start of the log into shadow schemas and
 * compare them, table by table, with the live read model; `--swap` then promotes the rebuild.
 *
 * What is compared: the live projection may be ahead of any fixed point (a `serve` elsewhere
 * keeps applying), so the live checkpoint and the live digests are read first, together, in
 * one REPEATABLE READ snapshot, and the shadow is rebuilt up to exactly that checkpoint. Both
 * sides then describe the same prefix of the log, the live side is only read (no lock, no
 * pause of a running runner), and a live runner that moves on meanwhile changes nothing in
 * the comparison. (Catching the live side up to the head first would mean applying to it,
 * which is the runner's job and needs its lock.)
 */

interface ProjectionReport {
  readonly projection: string;
  /** The live checkpoint both sides were compared at; null: nothing applied yet. */
  readonly position: Position | null;
  readonly events: number;
  readonly seconds: number;
  readonly tables: readonly TableComparison[];
  readonly equal: boolean;
  readonly swapped: boolean;
}

const selectProjections = (names: readonly string[]): Projection[] => {
  if (names.length === 0) return [...PROJECTIONS];
  const unknown = names.filter((name) => !PROJECTIONS.some((p) => p.name === name));
  if (unknown.length > 0) {
    throw new InvalidArgument(
      `unknown projection${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; known: ${PROJECTIONS.map((projection) => projection.name).join(', ')}`,
    );
  }
  return PROJECTIONS.filter((projection) => names.includes(projection.name));
};

const formatSeconds = (seconds: number): string =>
  seconds >= 3600
    ? `${Math.floor(seconds / 3600)}h${String(Math.round((seconds % 3600) / 60)).padStart(2, '0')}m`
    : seconds >= 60
      ? `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`
      : `${Math.round(seconds)}s`;

/**
 * A cli-progress bar on stderr when it is a terminal; otherwise (logs, CI) the same facts as a
 * plain line every 2 s and one at the end. events/s is the mean since the start; the ETA is
 * cli-progress's, over the last batches.
 */
const startProgress = (
  name: string,
  total: number,
): { update(events: number): void; stop(): void } => {
  const tty = process.stderr.isTTY;
  const started = performance.now();
  let rate = 0;
  const bar = new cliProgress.SingleBar({
    stream: process.stderr,
    format: (options, params) => {
      const percent = Math.floor(params.progress * 100);
      // Before the first batch there is no rate to extrapolate from.
      const eta =
        params.value === 0 || !Number.isFinite(params.eta) ? '?' : formatSeconds(params.eta);
      const facts = `${params.value}/${params.total} events, ${rate} events/s, ETA ${eta}`;
      return tty
        ? `${name} ${cliProgress.Format.BarFormat(params.progress, options)} ${percent}% | ${facts}`
        : `replay ${name}: ${percent}% ${facts}`;
    },
    barsize: 30,
    etaBuffer: 20,
    noTTYOutput: true,
    notTTYSchedule: 2000,
    // The last state stays on a terminal; off one, stopping must not add an empty line.
    clearOnComplete: !tty,
    hideCursor: false,
    // Ctrl-C ends the process as usual (the next replay drops the half-built shadow).
    gracefulExit: false,
  });
  bar.start(total, 0);
  return {
    update: (events) => {
      const seconds = (performance.now() - started) / 1000;
      rate = seconds > 0 ? Math.round(events / seconds) : 0;
      bar.update(events);
    },
    stop: () => {
      bar.stop();
    },
  };
};

interface ReplayContext {
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly swap: boolean;
  readonly keep: boolean;
  /** Worker threads of a bulk rebuild (server Postgres with the Postgres event store). */
  readonly workers: number;
  readonly locks: Map<string, Lease>;
}

/** Most worker threads `--workers` takes: past the cores, threads only contend. */
const MAX_WORKERS = 16;

/**
 * Threads for a rebuild by default: one per core up to four. The database's server
 * processes need cores too, so past that the fold rarely gets faster.
 */
const defaultWorkers = (): number => Math.min(4, os.availableParallelism());

const replayOne = async (
  context: ReplayContext,
  projection: Projection,
): Promise<ProjectionReport> => {
  const { pool } = context.database;
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
      const progress = startProgress(projection.name, Number(live.eventsApplied));
      try {
        ({ events } = await replayProjection({
          pool,
          eventStore: context.eventStore,
          projection,
          schema: shadow,
          until: live.position,
          batchSize: REPLAY_BATCH_SIZE,
          // COPY needs server Postgres; the workers read the log with their own Postgres
          // event store, so they need the log to be in that database too.
          bulk: context.database.kind === 'postgres',
          ...(context.database.connectionString !== undefined &&
          context.eventStore.kind === 'postgres'
            ? {
                parallel: {
                  connectionString: context.database.connectionString,
                  workers: context.workers,
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
    if (context.swap) {
      await promoteShadow(pool, projection, shadow, {
        notify: context.database.kind === 'postgres',
      });
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
    if (swapped || !context.keep) {
      // Not masking the error that got here, if any.
      await dropShadow(pool, projection, shadow).catch((error: unknown) => {
        context.logger.warn({ err: error, schema: shadow }, 'could not drop the shadow schema');
      });
    }
  }
};

/**
 * Takes, before any work, the locks a run needs: each shadow's (one replay of a projection
 * at a time) and, for --swap, each live projection's (no runner applies it meanwhile).
 */
const takeLocks = async (
  context: ReplayContext,
  leases: LeaseManager,
  projections: readonly Projection[],
): Promise<void> => {
  for (const projection of projections) {
    const shadow = shadowSchemaFor(projection);
    const shadowLock = await tryProjectionLock(leases, shadow, projection);
    if (!shadowLock) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `another "cogitave replay" of projection "${projection.name}" is running (it holds the lock on ${shadow}.${projection.name}); wait for it to finish`,
      );
    }
    context.locks.set(`${shadow}.${projection.name}`, shadowLock);
    if (!context.swap) continue;
    const liveLock = await tryProjectionLock(leases, READ_MODEL_SCHEMA, projection);
    if (!liveLock) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `projection "${projection.name}" is being applied by another process (it holds the runner's lock on ${READ_MODEL_SCHEMA}.${projection.name}); stop that process (e.g. "cogitave serve") and run "cogitave replay --swap" again`,
      );
    }
    context.locks.set(`${READ_MODEL_SCHEMA}.${projection.name}`, liveLock);
  }
};

const short = (sha256: string): string => (sha256 === '' ? '-' : sha256.slice(0, 16));

const renderTable = (rows: readonly (readonly string[])[]): string => {
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths?.[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

const renderText = (reports: readonly ProjectionReport[]): string => {
  const lines: string[] = [];
  for (const report of reports) {
    lines.push(
      report.position === null
        ? `${report.projection}: the live projection has applied no event yet; compared empty tables`
        : `${report.projection}: rebuilt ${report.events} events up to the live checkpoint ${report.position} in ${report.seconds.toFixed(1)} s`,
    );
    lines.push(
      renderTable([
        ['TABLE', 'LIVE DIGEST', 'SHADOW DIGEST', 'ROWS LIVE', 'ROWS SHADOW', 'RESULT'],
        ...report.tables.map((table) => [
          table.table,
          short(table.live.sha256),
          short(table.shadow.sha256),
          String(table.live.rows),
          String(table.shadow.rows),
          table.equal ? 'equal' : 'DIFFERENT',
        ]),
      ]),
    );
    if (report.swapped) {
      lines.push(
        `swapped: ${READ_MODEL_SCHEMA} now holds the rebuild of ${report.projection} (checkpoint ${report.position ?? 'empty'}); the old tables were dropped`,
      );
    }
    lines.push('');
  }
  const different = reports.flatMap((report) =>
    report.tables
      .filter((table) => !table.equal)
      .map((table) => `${report.projection}.${table.table}`),
  );
  const tables = reports.reduce((sum, report) => sum + report.tables.length, 0);
  lines.push(
    different.length === 0
      ? `all ${tables} tables equal`
      : `DIFFERENT: ${different.join(', ')} (live differs from a rebuild from the log)`,
  );
  return `${lines.join('\n')}\n`;
};

const renderJson = (reports: readonly ProjectionReport[]): string =>
  `${JSON.stringify({
    equal: reports.every((report) => report.equal),
    projections: reports.map((report) => ({
      projection: report.projection,
      position: report.position,
      events: report.events,
      seconds: Number(report.seconds.toFixed(3)),
      equal: report.equal,
      swapped: report.swapped,
      tables: report.tables.map((table) => ({
        table: table.table,
        equal: table.equal,
        rows: { live: table.live.rows, shadow: table.shadow.rows },
        sha256: { live: table.live.sha256, shadow: table.shadow.sha256 },
      })),
    })),
  })}\n`;

export const replayCommand = new Command('replay')
  .description(
    `Rebuild projections (default: all of ${PROJECTIONS.map((projection) => projection.name).join(', ')}) from the start of the log into a shadow schema, up to the live checkpoint, and compare per-table digests with the live read model. Exits 1 and names the tables that differ (also with --swap, which then replaces them).`,
  )
  .argument('[projection...]', 'projections to rebuild (default: all)')
  .option(
    '--swap',
    'promote the rebuilt tables to live in one transaction and drop the old ones (refused while another process applies the projection)',
  )
  .option('--keep', 'keep the shadow schema (cogitave_replay_<name>) for inspection')
  .option('--json', 'print the report as JSON')
  .addOption(
    new Option(
      '--workers <n>',
      `worker threads that rebuild partitions of the streams in parallel (server Postgres; default: cores, at most 4; at most ${MAX_WORKERS})`,
    ).argParser(parseCount(MAX_WORKERS)),
  )
  .action(
    async (
      names: string[],
      flags: { swap?: boolean; keep?: boolean; json?: boolean; workers?: number },
    ) => {
      // Checked before connecting: a typo is a usage error, whatever the database's state.
      const projections = selectProjections([...new Set(names)]);
      await withApp(true, async ({ database, eventStore, logger }) => {
        const context: ReplayContext = {
          database,
          eventStore,
          logger,
          swap: flags.swap === true,
          keep: flags.keep === true,
          workers: flags.workers ?? defaultWorkers(),
          locks: new Map(),
        };
        const leases = createLeaseManager({ database, logger });
        const reports: ProjectionReport[] = [];
        try {
          await takeLocks(context, leases, projections);
          for (const projection of projections) {
            reports.push(await replayOne(context, projection));
          }
        } finally {
          for (const lock of context.locks.values()) await lock.release();
          await leases.close();
        }
        process.stdout.write(flags.json ? renderJson(reports) : renderText(reports));
        if (!reports.every((report) => report.equal)) process.exitCode = 1;
      });
    },
  );
