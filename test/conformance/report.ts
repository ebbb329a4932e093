/**
 * The scenario × revision table of a conformance run: reads the suite's result folders
 * (`<results>/<revision>/server-<scenario>-<time>/checks.json`) and prints Markdown, one row
 * per scenario, each cell `pass n` (checks passed, with any skipped), `FAIL f of n` or
 * `expected failure` (the reasons follow the table).
 *   tsx test/conformance/report.ts RESULTS_DIR EXPECTED_FAILURES_YML
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Check {
  readonly status: string;
}

const [resultsDir = '', baselineFile = ''] = process.argv.slice(2);

/** Scenario name → the reason its comment in the baseline gives. */
const expected = new Map<string, string>();
for (const line of readFileSync(baselineFile, 'utf8').split('\n')) {
  const match = /^\s*-\s*([a-z0-9-]+)\s*(?:#\s*(.*))?$/.exec(line);
  if (match?.[1]) expected.set(match[1], match[2] ?? '');
}

const columns = existsSync(resultsDir) ? readdirSync(resultsDir).sort() : [];
const cells = new Map<string, Map<string, string>>();
for (const column of columns) {
  for (const folder of readdirSync(join(resultsDir, column))) {
    const match = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(folder);
    const file = join(resultsDir, column, folder, 'checks.json');
    if (!match?.[1] || !existsSync(file)) continue;
    const scenario = match[1];
    const checks = JSON.parse(readFileSync(file, 'utf8')) as Check[];
    const count = (status: string) => checks.filter((check) => check.status === status).length;
    const [passed, failed, skipped, warned] = ['SUCCESS', 'FAILURE', 'SKIPPED', 'WARNING'].map(
      count,
    ) as [number, number, number, number];
    const notes = [
      ...(skipped > 0 ? [`${String(skipped)} skipped`] : []),
      ...(warned > 0 ? [`${String(warned)} warnings`] : []),
    ];
    const suffix = notes.length > 0 ? ` (${notes.join(', ')})` : '';
    const cell =
      failed === 0
        ? `pass ${String(passed)}${suffix}`
        : expected.has(scenario)
          ? 'expected failure'
          : `**FAIL ${String(failed)} of ${String(passed + failed)}**`;
    const row = cells.get(scenario) ?? new Map<string, string>();
    row.set(column, cell);
    cells.set(scenario, row);
  }
}

const lines = [
  `| scenario | ${columns.join(' | ')} |`,
  `| --- | ${columns.map(() => '---').join(' | ')} |`,
  ...[...cells.entries()].map(
    ([scenario, row]) =>
      `| ${scenario} | ${columns.map((column) => row.get(column) ?? '—').join(' | ')} |`,
  ),
];
const reasons = [...expected.entries()].filter(([scenario]) => cells.has(scenario));
console.log(lines.join('\n'));
if (reasons.length > 0) {
  console.log('\nExpected failures:');
  for (const [scenario, reason] of reasons) console.log(`- ${scenario}: ${reason}`);
}
