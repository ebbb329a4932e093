/**
 * Soak: GitHub down for a minute (SOAK_OUTAGE_MS, default 60,000) while agents propose
 * (SOAK_INTAKES intakes, default 20; SOAK_STAGE_PROPOSALS of them also propose a stage
 * change, default 10). Exits 1 unless the reactor catches up with exactly one issue per intake
 * and one draft pull request per stage proposal. Needs the test Postgres (TEST_DATABASE_URL).
 *
 *   npx tsx test/soak/github-outage.ts
 */
import { runGitHubOutage } from '../chaos/github-outage.js';

const numberFrom = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    process.stderr.write(`${name} must be a non-negative integer (got ${String(raw)})\n`);
    process.exit(2);
  }
  return value;
};

const outageMs = numberFrom('SOAK_OUTAGE_MS', 60_000);
const intakes = Math.max(1, numberFrom('SOAK_INTAKES', 20));
const stageProposals = Math.min(intakes, numberFrom('SOAK_STAGE_PROPOSALS', 10));

const report = await runGitHubOutage({
  outageMs,
  intakes,
  stageProposals,
  log: (line) => {
    process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  },
});

const problems: string[] = [];
if (report.issues !== intakes)
  problems.push(`${String(report.issues)} issues for ${String(intakes)} intakes`);
if (report.pullRequests !== stageProposals)
  problems.push(
    `${String(report.pullRequests)} pull requests for ${String(stageProposals)} stage proposals`,
  );
if ((report.writes['issues/create'] ?? 0) !== intakes)
  problems.push('issues/create ran more often than once per intake');
if ((report.writes['pulls/create'] ?? 0) !== stageProposals)
  problems.push('pulls/create ran more often than once per stage proposal');
if (report.violations.length > 0)
  problems.push(`${String(report.violations.length)} API violations`);
for (const [requestId, types] of Object.entries(report.streams)) {
  if (types.filter((type) => type === 'IntakeIssueOpened').length !== 1)
    problems.push(
      `${requestId}: IntakeIssueOpened recorded ${String(types.filter((t) => t === 'IntakeIssueOpened').length)} times`,
    );
}

process.stdout.write(
  `outage ${String(outageMs)} ms, ${String(report.faultedCalls)} GitHub calls faulted; caught up ${String(report.catchUpMs)} ms after GitHub came back: ${String(report.issues)} issues, ${String(report.pullRequests)} draft pull requests\n`,
);
if (problems.length > 0) {
  process.stdout.write(`FAILED:\n- ${problems.join('\n- ')}\n`);
  process.exit(1);
}
process.stdout.write('ok: exactly one GitHub object per proposal\n');
