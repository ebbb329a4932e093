import { createInterface } from 'node:readline/promises';
import cliProgress from 'cli-progress';
import type { CorpusIssue } from '../../services/catalog/corpus.js';
import {
  CONFIRM_RETIRE_ABOVE,
  type IngestReport,
  type RetireConfirmation,
} from '../../services/catalog/ingest.js';
import { groupWarnings, WARNING_KIND_TITLES } from '../../services/catalog/warning-groups.js';

/**
 * What `ingest` and `sources` print: a summary, then every skipped file, configuration file,
 * error and warning, grouped by what fixes them (the JSON report holds every line).
 */
const WARNINGS_PER_GROUP = 10;
/** Skipped files of one reason listed one by one up to this many; above, one line with a count. */
const SKIPPED_LISTED = 3;

/**
 * Skipped files grouped by why: a sample folder or a site's assets are hundreds of files skipped
 * for one reason, which one line says; a reason few files share lists them.
 */
export const formatSkipped = (
  skipped: readonly { readonly file: string; readonly reason: string; readonly fix?: string }[],
): string[] => {
  const groups = new Map<string, string[]>();
  for (const file of skipped) {
    const key = `${file.reason}${file.fix ? ` (${file.fix})` : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), file.file]);
  }
  return [...groups].flatMap(([why, files]) =>
    files.length <= SKIPPED_LISTED
      ? files.map((file) => `  ${file}: ${why}`)
      : [`  ${files.length} × ${why}, e.g. ${files.slice(0, SKIPPED_LISTED).join(', ')}`],
  );
};

export const progressBar = (
  label: string,
): { update(done: number, total: number): void; stop(): void } => {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `${label} {bar} {value}/{total} nodes`, hideCursor: true },
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

/**
 * In an interactive terminal, asks before retiring more than a few pages; elsewhere (scripts,
 * CI) there is nobody to ask and the change goes ahead, as the report then says.
 */
export const retirePrompt = (
  yes: boolean,
): ((question: RetireConfirmation) => Promise<boolean>) | undefined => {
  if (yes || !process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (question) => {
    const readline = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const examples = question.examples.join(', ');
      const answer = await readline.question(
        `This retires ${question.pages} page(s) of source ${question.source} (${question.nodes} nodes with their code samples), e.g. ${examples}.\nContinue? [y/N] `,
      );
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      readline.close();
    }
  };
};

/**
 * Said on stderr when pages were retired beyond the question's threshold with nobody asked
 * (no terminal, and no --yes): the change went ahead, and the output says so.
 */
export const noteUnaskedRetirement = (
  pages: number,
  source: string,
  asked: boolean,
  yes: boolean,
): void => {
  if (asked || yes || pages <= CONFIRM_RETIRE_ABOVE) return;
  process.stderr.write(
    `note: retired ${pages} pages of source ${source} without asking: not an interactive terminal (pass --yes to say it is intended; --dry-run shows the plan first)\n`,
  );
};

const location = (issue: CorpusIssue): string =>
  `${issue.file}${issue.line === undefined ? '' : `:${issue.line}`}`;

const groupByFix = (issues: readonly CorpusIssue[]): Map<string, CorpusIssue[]> => {
  const groups = new Map<string, CorpusIssue[]>();
  for (const issue of issues) {
    const key = issue.fix ?? '';
    const group = groups.get(key);
    if (group) group.push(issue);
    else groups.set(key, [issue]);
  }
  return groups;
};

const itemLines = (issues: readonly CorpusIssue[], indent: string): string[] => [
  ...issues
    .slice(0, WARNINGS_PER_GROUP)
    .map((issue) => `${indent}${location(issue)}: ${issue.reason}`),
  ...(issues.length > WARNINGS_PER_GROUP
    ? [`${indent}… and ${issues.length - WARNINGS_PER_GROUP} more (--json lists every one)`]
    : []),
];

/**
 * Warnings by kind (warning-groups.ts): those to fix item by item and first, references to
 * other doc sets and API uids in one line each with a count and the most frequent targets.
 */
export const formatWarningGroups = (warnings: readonly CorpusIssue[]): string[] =>
  groupWarnings(warnings).flatMap((group) => {
    const title = `  ${group.issues.length} × ${WARNING_KIND_TITLES[group.kind]}`;
    if (!group.itemized) {
      const examples = group.examples
        .map((example) => `${example.target}${example.count > 1 ? ` (${example.count}×)` : ''}`)
        .join(', ');
      return [
        `${title}, e.g. ${examples}: not edges; nothing to do unless they are this site’s (then check --base-url and the site’s configuration; --json lists every one)`,
      ];
    }
    const byFix = groupByFix(group.issues);
    if (byFix.size === 1) {
      const [fix] = byFix.keys();
      return [`${title}${fix ? ` (fix: ${fix})` : ''}:`, ...itemLines(group.issues, '    ')];
    }
    return [
      `${title}:`,
      ...[...byFix].flatMap(([fix, issues]) => [
        `    ${issues.length} × fix: ${fix || '(none needed)'}`,
        ...itemLines(issues, '      '),
      ]),
    ];
  });

export const describeIssue = (issue: CorpusIssue): string =>
  `${location(issue)}: ${issue.field}: ${issue.reason}${issue.fix ? ` (fix: ${issue.fix})` : ''}`;

export const formatIngestReport = (report: IngestReport): string => {
  const lines: string[] = [];
  const samples = report.nodes - report.pages;
  const verb = report.dryRun ? 'plan for' : report.applied ? 'ingested' : 'not ingested:';
  lines.push(
    `${verb} ${report.nodes} nodes (${report.pages} pages, ${samples} code samples) of source ${report.source} (${report.generator}) from ${report.files} files in ${report.seconds.toFixed(2)} s: ` +
      `${report.published} published, ${report.revised} revised, ${report.retired} retired, ${report.unchanged} unchanged`,
  );
  if (report.declined) lines.push('nothing was appended: the retirement was not confirmed');
  if (report.versions.length > 0) {
    const latest = new Set(report.latest);
    lines.push(
      `versions: ${report.versions.map((v) => (latest.has(v) ? `${v} (latest)` : v)).join(', ')}`,
    );
  }
  for (const note of report.configuration) {
    lines.push(
      `configuration ${note.file}: ${note.read ? 'read' : 'not read'}: ${note.reason}${note.fix ? ` (${note.fix})` : ''}`,
    );
  }
  if (report.skipped.length > 0) {
    lines.push(`skipped ${report.skipped.length} file(s):`);
    lines.push(...formatSkipped(report.skipped));
  }
  if (report.uncompiledSamples.length > 0) {
    lines.push(
      `${report.uncompiledSamples.length} TypeScript/JavaScript sample(s) do not compile; they are ingested marked compiled: false (--json lists their diagnostics)`,
    );
  }
  if (report.warnings.length > 0) {
    lines.push(`${report.warnings.length} warning(s); the ingest went on:`);
    lines.push(...formatWarningGroups(report.warnings));
  }
  if (report.errors.length > 0) {
    lines.push(`${report.errors.length} error(s); nothing was appended:`);
    for (const issue of report.errors) lines.push(`  ${describeIssue(issue)}`);
  }
  return `${lines.join('\n')}\n`;
};
