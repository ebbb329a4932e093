import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ingestActivity } from '../../services/catalog/activity.js';
import { ingestCorpus, type IngestReport } from '../../services/catalog/ingest.js';
import { SHIPPED_SOURCE, sourceNameProblem } from '../../services/catalog/sources.js';
import {
  CATALOG_INGEST_ACTOR,
  defaultCorpusDir,
  describeIssues,
} from '../../services/catalog/start-up.js';
import { logActivity } from '../../services/runtime/activity.js';
import { InvalidArgument } from '../../services/runtime/errors.js';
import {
  formatIngestReport,
  noteUnaskedRetirement,
  progressBar,
  retirePrompt,
} from './catalog-output.js';
import { withApp } from './context.js';
import { formatRunPhases, PHASES_SHOWN_ABOVE_SECONDS, runPhases } from './run-time.js';

/**
 * `cogitave ingest <dir>`: read a documentation folder as it is, check it as a whole, then
 * publish new nodes, revise changed ones and retire the ones gone from it, all within the
 * folder's source. Any error: nothing is appended.
 */
export const parseSourceName = (value: string): string => {
  const problem = sourceNameProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
};

const parseBaseUrl = (value: string): string => {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    return url.toString();
  } catch {
    throw new InvalidArgumentError(
      'expected the site’s public URL, e.g. https://docs.example.com/',
    );
  }
};

export const commandActor = (): string =>
  process.env.USER ? `cli:${process.env.USER}` : CATALOG_INGEST_ACTOR;

export const ingestCommand = new Command('ingest')
  .description(
    'Ingest a documentation folder as it is (Markdown and MDX, front matter optional, Mintlify/Docusaurus/MkDocs/VitePress/DocFX conventions, JSON learning-module units) into the knowledge graph as one source: checks everything first (any error appends nothing), then publishes new pages, revises changed ones and retires the ones no longer in the folder — only within that source. Reports every skipped file and every problem with its fix.',
  )
  .argument('<dir>', 'documentation folder')
  .option('--source <name>', 'source name (default: the folder’s name)', parseSourceName)
  .option('--base-url <url>', 'public URL of the site, so links to it resolve', parseBaseUrl)
  .option('--dry-run', 'check and print the plan; append nothing')
  .addOption(
    new Option(
      '--check-samples <mode>',
      'compile check of TypeScript/JavaScript samples: syntax (parse), types (type-check against this installation’s packages) or none',
    )
      .choices(['types', 'syntax', 'none'])
      .default('syntax'),
  )
  .option(
    '--no-check-samples',
    'skip the compile check of code samples (same as --check-samples none)',
  )
  .option('--yes', 'do not ask before retiring pages')
  .option('--json', 'print the report as JSON')
  .action(
    async (
      dir: string,
      flags: {
        source?: string;
        baseUrl?: string;
        dryRun?: boolean;
        checkSamples: string | boolean;
        yes?: boolean;
        json?: boolean;
      },
    ) => {
      const loaded = performance.now();
      let opened = loaded;
      let worked = loaded;
      const ingested = await withApp(true, async ({ eventStore, logger }) => {
        opened = performance.now();
        const bar = flags.json
          ? { update: () => undefined, stop: () => undefined }
          : progressBar('ingest');
        const checkSamples =
          flags.checkSamples === false || flags.checkSamples === 'none'
            ? false
            : flags.checkSamples === 'types'
              ? 'types'
              : 'syntax';
        const confirmRetire = retirePrompt(flags.yes ?? false);
        let report: IngestReport;
        try {
          report = await ingestCorpus(eventStore, {
            dir,
            // The shipped corpus is its own source whichever way it is ingested.
            ...(flags.source !== undefined
              ? { source: flags.source }
              : resolve(dir) === resolve(defaultCorpusDir())
                ? { source: SHIPPED_SOURCE }
                : {}),
            ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
            dryRun: flags.dryRun ?? false,
            checkSamples,
            ...(confirmRetire ? { confirmRetire } : {}),
            meta: { commandId: randomUUID(), actor: commandActor(), at: new Date().toISOString() },
            onProgress: (done, total) => {
              bar.update(done, total);
            },
          });
        } finally {
          bar.stop();
        }
        if (report.applied) {
          logActivity(logger, ingestActivity(report, commandActor()));
          const retiredPages = report.plan.filter(
            (entry) => entry.action === 'retire' && entry.label !== 'CodeSample',
          ).length;
          noteUnaskedRetirement(
            retiredPages,
            report.source,
            confirmRetire !== undefined,
            flags.yes ?? false,
          );
        }
        worked = performance.now();
        return report;
      });
      // Printed once the database is closed: the time reported is the whole run's.
      const closed = performance.now();
      const phases = runPhases({ loaded, opened, worked, closed }, [
        { name: 'read', seconds: ingested.phases.read },
        { name: 'append', seconds: ingested.phases.append },
      ]);
      const report: IngestReport = { ...ingested, seconds: closed / 1000 };
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ ...report, runPhases: phases })}\n`);
      } else {
        if (flags.dryRun) {
          for (const entry of report.plan.filter((e) => e.action !== 'unchanged')) {
            process.stdout.write(
              `${entry.action.padEnd(9)} ${entry.label.padEnd(12)} ${entry.uid}\n`,
            );
          }
        }
        process.stdout.write(formatIngestReport(report));
        if (report.seconds > PHASES_SHOWN_ABOVE_SECONDS) {
          process.stdout.write(`${formatRunPhases(report.seconds, phases)}\n`);
        }
      }
      if (report.errors.length > 0) {
        throw new InvalidArgument(
          `${report.errors.length} error(s) in ${report.root}; nothing was ingested:\n  ${describeIssues(report, 200)}`,
          { errors: report.errors },
        );
      }
    },
  );
