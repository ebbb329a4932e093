import { randomUUID } from 'node:crypto';
import cliProgress from 'cli-progress';
import { Command } from 'commander';
import { ingestCorpus, type IngestReport } from '../../services/catalog/ingest.js';
import { CATALOG_INGEST_ACTOR, describeIssues } from '../../services/catalog/start-up.js';
import { InvalidArgument } from '../../services/runtime/errors.js';
import { withApp } from './context.js';

/**
 * `cogitave ingest <dir>`: validate a corpus folder as a whole, then append NodePublished /
 * NodeRevised / NodeRetired for what changed. Any error: nothing is appended.
 */
const summary = (report: IngestReport): string =>
  `${report.dryRun ? 'plan' : 'ingested'} ${report.nodes} nodes from ${report.files} files in ${report.seconds.toFixed(2)} s: ` +
  `${report.published} published, ${report.revised} revised, ${report.retired} retired, ${report.unchanged} unchanged`;

const progressBar = (): { update(done: number, total: number): void; stop(): void } => {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'ingest {bar} {value}/{total} nodes', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (done, total) => {
      if (total === 0) return;
      if (!started) {
        bar.start(total, done);
        started = true;
      } else bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
};

export const ingestCommand = new Command('ingest')
  .description(
    'Ingest a corpus folder (Markdown with YAML front matter, JSON learning-module units) into the knowledge graph: validates everything first (any error appends nothing), then publishes new nodes, revises changed ones and retires nodes no longer in the folder.',
  )
  .argument('<dir>', 'corpus folder')
  .option('--dry-run', 'validate and print the plan; append nothing')
  .option('--no-check-samples', 'skip the TypeScript compile check of code samples')
  .option('--json', 'print the report as JSON')
  .action(
    async (dir: string, flags: { dryRun?: boolean; checkSamples: boolean; json?: boolean }) => {
      await withApp(true, async ({ eventStore }) => {
        const bar = flags.json ? { update: () => undefined, stop: () => undefined } : progressBar();
        let report: IngestReport;
        try {
          report = await ingestCorpus(eventStore, {
            dir,
            dryRun: flags.dryRun ?? false,
            checkSamples: flags.checkSamples,
            meta: {
              commandId: randomUUID(),
              actor: process.env.USER ? `cli:${process.env.USER}` : CATALOG_INGEST_ACTOR,
              at: new Date().toISOString(),
            },
            onProgress: (done, total) => {
              bar.update(done, total);
            },
          });
        } finally {
          bar.stop();
        }
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(report)}\n`);
        } else {
          if (flags.dryRun) {
            for (const entry of report.plan.filter((e) => e.action !== 'unchanged')) {
              process.stdout.write(
                `${entry.action.padEnd(9)} ${entry.label.padEnd(12)} ${entry.uid}\n`,
              );
            }
          }
          for (const link of report.dangling) {
            process.stdout.write(
              `dangling: ${link.file}: ${link.uid} -[:${link.edgeType}]-> ${link.target} (no such node)\n`,
            );
          }
          for (const sample of report.uncompiledSamples) {
            process.stdout.write(
              `sample does not compile: ${sample.uid}: ${sample.diagnostics.join(' | ')}\n`,
            );
          }
          if (report.errors.length === 0) process.stdout.write(`${summary(report)}\n`);
        }
        if (report.errors.length > 0) {
          throw new InvalidArgument(
            `${report.errors.length} error(s) in ${report.root}; nothing was ingested:\n  ${describeIssues(report, 200)}`,
            { errors: report.errors },
          );
        }
      });
    },
  );
