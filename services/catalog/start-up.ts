import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EventStore } from '../event-store/types.js';
import type { Config } from '../runtime/config.js';
import { CogitaveError } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';
import { logActivity } from '../runtime/activity.js';
import { ingestActivity } from './activity.js';
import { ingestCorpus, type IngestReport } from './ingest.js';
import { SHIPPED_SOURCE } from './sources.js';
import { groupWarnings } from './warning-groups.js';

/**
 * The documentation shipped with Cogitave Core, as a catalog. The build copies it next to the
 * compiled code; running from a build without it falls back to the source tree.
 */
export const defaultCorpusDir = (): string => {
  const beside = fileURLToPath(new URL('./corpus/', import.meta.url));
  if (existsSync(beside)) return beside;
  return fileURLToPath(new URL('../../../services/catalog/corpus/', import.meta.url));
};

/**
 * CATALOG_DIR must name a folder (or be `none`): checked when `serve` starts, before the
 * database is opened, so a typo is a configuration error and not a log line later.
 */
export const assertCatalogDir = (config: Pick<Config, 'catalogDir'>): void => {
  const setting = config.catalogDir;
  if (setting === undefined || setting.toLowerCase() === 'none') return;
  let isFolder: boolean;
  try {
    isFolder = statSync(setting).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `CATALOG_DIR: ${setting} is not a folder${existsSync(setting) ? '' : ' (it does not exist)'}; set it to the documentation folder to ingest at start-up, or to none to ingest nothing.`,
      { catalogDir: setting },
    );
  }
};

export const CATALOG_INGEST_ACTOR = 'system:catalog-ingest';

/** Formats the first problems of a refused corpus for a log line or an error. */
export const describeIssues = (report: IngestReport, max = 20): string =>
  report.errors
    .slice(0, max)
    .map(
      (issue) =>
        `${issue.file}: ${issue.field}: ${issue.reason}${issue.fix ? ` (fix: ${issue.fix})` : ''}`,
    )
    .join('\n  ') +
  (report.errors.length > max ? `\n  … and ${report.errors.length - max} more` : '');

/**
 * Ingests the shipped corpus as the source `cogitave-core` (or `CATALOG_DIR` as the source named
 * after its folder; `none` disables) so a fresh `serve` has a real graph. It revises and retires
 * only within that source: documents a user ingested stay. A folder whose fingerprint (files,
 * settings, code) the log already records for the source is not read again, and unchanged
 * content appends nothing, so this is cheap on every start. A corpus with errors stops start-up with the problems
 * listed (nothing is appended).
 */
export interface StartUpIngestParts {
  readonly config: Pick<Config, 'catalogDir'>;
  readonly eventStore: EventStore;
  readonly logger: Logger;
}

export const ingestDefaultCorpusOnStart = async (
  app: StartUpIngestParts,
  /** Documents applied so far of those to apply (start-up progress, told to waiting calls). */
  onProgress?: (done: number, total: number) => void,
): Promise<IngestReport | undefined> => {
  const setting = app.config.catalogDir;
  if (setting?.toLowerCase() === 'none') {
    app.logger.info('catalog start-up ingest disabled (CATALOG_DIR=none)');
    return undefined;
  }
  const dir = setting ?? defaultCorpusDir();
  const report = await ingestCorpus(app.eventStore, {
    dir,
    // The shipped samples are this product's own code: they must type-check against it.
    ...(setting === undefined ? { source: SHIPPED_SOURCE, checkSamples: 'types' as const } : {}),
    skipIfUnchanged: true,
    ...(onProgress ? { onProgress } : {}),
    meta: { commandId: randomUUID(), actor: CATALOG_INGEST_ACTOR, at: new Date().toISOString() },
  });
  if (report.errors.length > 0) {
    throw new CogitaveError(
      'INVALID_ARGUMENT',
      `CATALOG_DIR: the corpus in ${report.root} has ${report.errors.length} error(s); nothing was ingested:\n  ${describeIssues(report)}`,
      { errors: report.errors },
    );
  }
  if (report.warnings.length > 0) {
    // The ones to fix first (warning-groups.ts), and how many of each kind.
    const groups = groupWarnings(report.warnings);
    app.logger.warn(
      {
        warnings: groups.flatMap((group) => group.issues).slice(0, 20),
        count: report.warnings.length,
        kinds: Object.fromEntries(groups.map((group) => [group.kind, group.issues.length])),
      },
      'catalog ingested with warnings (links that go nowhere, missing includes; run cogitave ingest --dry-run for all)',
    );
  }
  const detail = {
    dir: report.root,
    source: report.source,
    published: report.published,
    revised: report.revised,
    retired: report.retired,
    unchanged: report.unchanged,
    dangling: report.dangling.length,
    seconds: Number(report.seconds.toFixed(2)),
  };
  if (report.upToDate) {
    app.logger.info(
      detail,
      'catalog unchanged since its last ingest (same files, settings and code): nothing read',
    );
  } else {
    // An ingest that ran is a source change: its line is the activity log's.
    logActivity(app.logger, ingestActivity(report, CATALOG_INGEST_ACTOR, detail));
  }
  return report;
};
