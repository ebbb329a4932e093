/**
 * Projection soak: the kill -9 trials of test/int/projections/crash.int.test.ts, longer. A
 * throwaway server database is filled with SOAK_EVENTS Request events once; then, SOAK_PASSES
 * times, the live read model is reset and rebuilt by projector processes killed with SIGKILL
 * SOAK_TRIALS times at random points. After every kill the live tables must equal a clean
 * rebuild to the same checkpoint, and every pass must end equal to a clean rebuild of the log.
 *
 *   npx tsx test/bench/projection-soak.ts [--json <file>]
 *
 * Environment: SOAK_EVENTS (default 300000), SOAK_TRIALS (kills per pass, default 30),
 * SOAK_PASSES (default 3), SOAK_SEED (default: the clock; printed), TEST_DATABASE_URL (admin
 * connection the throwaway database is created from). Exit code 1 when any digest differs.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resetProjection } from '../../projections/digest.js';
import { requestsProjection } from '../../services/requests/read-model/projection.js';
import { READ_MODEL_SCHEMA } from '../../projections/types.js';
import {
  runCrashTrials,
  seededRandom,
  type CrashRunReport,
} from '../int/projections/support/crash-trials.js';
import { bulkAppend, openTestBed } from '../int/projections/support/fixtures.js';

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`${name} must be a positive whole number (got "${raw ?? ''}")\n`);
    process.exit(2);
  }
  return value;
};

const { values } = parseArgs({ options: { json: { type: 'string' } }, strict: true });
const events = positiveInt('SOAK_EVENTS', 300_000);
const trials = positiveInt('SOAK_TRIALS', 30);
const passes = positiveInt('SOAK_PASSES', 3);
const seed = positiveInt('SOAK_SEED', (Date.now() % 2 ** 31) + 1);
const say = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const bed = await openTestBed('postgres', 'soak');
const reports: CrashRunReport[] = [];
try {
  say(`seed ${seed}: appending ${events} events`);
  const appendStarted = performance.now();
  await bulkAppend(bed.store, events, { prefix: 'req-soak', concurrency: 8 });
  say(`appended in ${Math.round(performance.now() - appendStarted)} ms`);
  const random = seededRandom(seed);
  for (let pass = 1; pass <= passes; pass += 1) {
    await resetProjection(bed.database.pool, requestsProjection, READ_MODEL_SCHEMA);
    const started = performance.now();
    const report = await runCrashTrials({
      pool: bed.database.pool,
      store: bed.store,
      databaseUrl: bed.url!,
      totalEvents: events,
      trials,
      shadowSchema: 'shadow_soak',
      random,
      log: (line) => {
        say(`pass ${pass}/${passes} ${line}`);
      },
    });
    reports.push(report);
    say(`pass ${pass} done in ${Math.round((performance.now() - started) / 1000)} s`);
  }
} finally {
  await bed.close();
}

const kills = reports.flatMap((report) => report.trials);
const summary = {
  seed,
  events,
  passes,
  kills: kills.length,
  killsMidTransaction: kills.filter((kill) => kill.rolledBack > 0).length,
  mismatches: kills.filter((kill) => !kill.digestsMatch).length,
  finalsMatching: reports.filter((report) => report.final.digestsMatch).length,
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
if (values.json) writeFileSync(values.json, JSON.stringify({ summary, reports }, null, 2));
process.exit(summary.mismatches === 0 && summary.finalsMatching === passes ? 0 : 1);
