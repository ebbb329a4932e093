import cliProgress from 'cli-progress';
import { Command, Option } from 'commander';
import { PROJECTIONS } from '../read-models.js';
import {
  defaultReplayWorkers,
  MAX_REPLAY_WORKERS,
  runReplay,
  selectProjections,
  type ProjectionReplayReport,
  type ReplayProgress,
} from '../../projections/replay-run.js';
import { READ_MODEL_SCHEMA } from '../../projections/types.js';
import { parseCount, withApp } from './context.js';

/**
 * `cogitave replay`: parses the flags, runs the replay use case (`projections/replay-run.ts`:
 * rebuild into shadow schemas, compare digests with the live read model, `--swap` promotes)
 * and prints its report; exit code 1 when a table differs.
 */

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
const startProgress = (name: string, total: number): ReplayProgress => {
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

const renderText = (reports: readonly ProjectionReplayReport[]): string => {
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

const renderJson = (reports: readonly ProjectionReplayReport[]): string =>
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
      `worker threads that rebuild partitions of the streams in parallel (server Postgres; default: cores, at most 4; at most ${MAX_REPLAY_WORKERS})`,
    ).argParser(parseCount(MAX_REPLAY_WORKERS)),
  )
  .action(
    async (
      names: string[],
      flags: { swap?: boolean; keep?: boolean; json?: boolean; workers?: number },
    ) => {
      // Checked before connecting: a typo is a usage error, whatever the database's state.
      const projections = selectProjections(names, PROJECTIONS);
      await withApp(true, async ({ database, eventStore, logger }) => {
        const reports = await runReplay({
          database,
          eventStore,
          logger,
          projections,
          swap: flags.swap === true,
          keep: flags.keep === true,
          workers: flags.workers ?? defaultReplayWorkers(),
          progress: startProgress,
        });
        process.stdout.write(flags.json ? renderJson(reports) : renderText(reports));
        if (!reports.every((report) => report.equal)) process.exitCode = 1;
      });
    },
  );
