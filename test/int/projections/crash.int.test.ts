import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkAppend, openTestBed, type TestBed } from './support/fixtures.js';
import { runCrashTrials, seededRandom } from './support/crash-trials.js';

/**
 * kill -9 of a projector process at random points of a 100,000-event catch-up, 12 times:
 * after every kill the live tables equal a clean rebuild to the same checkpoint, and the final
 * run equals a clean rebuild of the whole log. The longer variant is test/bench/projection-soak.ts.
 * PROJECTION_CRASH_SEED repeats a run (the seed is printed).
 */
const TOTAL = 100_000;
const TRIALS = 12;

describe('projector killed with SIGKILL during a 100k-event run', () => {
  let bed: TestBed;
  const seed = Number(process.env.PROJECTION_CRASH_SEED ?? Date.now() % 2 ** 31);

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'proj_crash');
    const started = performance.now();
    await bulkAppend(bed.store, TOTAL, { prefix: 'req-crash', concurrency: 8 });
    console.info(
      `appended ${TOTAL} events in ${Math.round(performance.now() - started)} ms; seed ${seed}`,
    );
  });

  afterAll(async () => {
    await bed.close();
  });

  it(`keeps rows and checkpoint atomic across ${TRIALS} kills`, async () => {
    const report = await runCrashTrials({
      pool: bed.database.pool,
      store: bed.store,
      databaseUrl: bed.url!,
      totalEvents: TOTAL,
      trials: TRIALS,
      shadowSchema: 'shadow_crash',
      random: seededRandom(seed),
      log: (line) => {
        console.info(line);
      },
    });
    expect(report.trials.filter((trial) => !trial.digestsMatch)).toEqual([]);
    expect(report.trials).toHaveLength(TRIALS);
    // Kills landed at distinct points of the run, not all before the first batch.
    expect(new Set(report.trials.map((trial) => trial.eventsAtKill)).size).toBeGreaterThan(
      TRIALS / 2,
    );
    // Most kills interrupted an open batch transaction (the database rolled it back).
    const midTransaction = report.trials.filter((trial) => trial.rolledBack > 0).length;
    console.info(`${midTransaction} of ${TRIALS} kills interrupted an open batch transaction`);
    expect(midTransaction).toBeGreaterThanOrEqual(TRIALS / 3);
    expect(report.final).toEqual({ eventsApplied: TOTAL, digestsMatch: true, gracefulExit: true });
    const rows = Object.fromEntries(report.digests.map((digest) => [digest.table, digest.rows]));
    expect(rows.request_history).toBe(TOTAL);
  }, 170_000);
});
