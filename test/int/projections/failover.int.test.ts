import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../../projections/checkpoints.js';
import { LOCK_APPLICATION_NAME } from '../../../projections/leases.js';
import { createProjectionRunner } from '../../../projections/runner.js';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection } from '../../../projections/replay.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { bulkAppend, openTestBed, silentLogger, type TestBed } from './support/fixtures.js';
import { killHard, spawnProjector, type Projector } from './support/processes.js';

/**
 * Two projector processes on one database: one applies (the advisory-lock holder), the other
 * waits; when the holder is killed with SIGKILL while events keep arriving, the other takes
 * over from the checkpoint. No event is applied twice (history's primary key is the position,
 * and the checkpoint's count equals the log's) and none is skipped.
 */
describe('two runner processes', () => {
  let bed: TestBed;
  const running: Projector[] = [];

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'proj_failover');
    await bulkAppend(bed.store, 6000, { prefix: 'req-fa' });
  });

  afterAll(async () => {
    await Promise.all(running.map(killHard));
    await bed.close();
  });

  it('apply one at a time and fail over when the holder dies', async () => {
    const a = spawnProjector(bed.url!, 'projector-a');
    running.push(a);
    await a.waitFor((line) => line.status?.leader === true, 30_000);
    const b = spawnProjector(bed.url!, 'projector-b');
    running.push(b);
    await b.waitFor((line) => line.status?.state === 'standby', 30_000);

    // New events keep arriving while the holder is killed.
    const appending = (async () => {
      for (let chunk = 0; chunk < 6; chunk += 1) {
        await bulkAppend(bed.store, 1000, { prefix: `req-fb${chunk}`, concurrency: 2 });
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    await a.waitFor((line) => (line.batch?.applied ?? 0) >= 3000, 60_000);
    await killHard(a);
    const takeover = await b.waitFor((line) => line.status?.leader === true, 30_000);
    expect(takeover.status?.state).toBe('running');
    await appending;

    // By count: a position read now could trail the log's end (visibility is cluster-wide).
    const total = 12_000;
    await expect
      .poll(
        async () =>
          (await readCheckpoint(bed.database.pool, 'read_model', 'requests'))?.eventsApplied,
        { timeout: 60_000 },
      )
      .toBe(BigInt(total));
    const checkpoint = await readCheckpoint(bed.database.pool, 'read_model', 'requests');
    expect(checkpoint?.eventsApplied).toBe(BigInt(total));
    const history = await bed.database.pool.query<{ n: number; distinct_events: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS distinct_events FROM read_model.request_history',
    );
    expect(history.rows[0]).toEqual({ n: total, distinct_events: total });

    // While A held the lock, B applied nothing; B never stopped.
    const bLines = b.lines();
    const leaderAt = bLines.findIndex((line) => line.status?.leader === true);
    const firstBatch = bLines.findIndex((line) => line.batch !== undefined);
    expect(firstBatch).toBeGreaterThan(leaderAt);
    expect(bLines.some((line) => line.status?.state === 'stopped')).toBe(false);
    const aBatches = a.lines().filter((line) => line.batch).length;
    expect(aBatches).toBeGreaterThan(0);

    await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: requestsProjection,
      schema: 'shadow_failover',
    });
    expect(await digestTables(bed.database.pool, requestsProjection)).toEqual(
      await digestTables(bed.database.pool, requestsProjection, 'shadow_failover'),
    );

    b.child.kill('SIGTERM');
    expect(await b.exited).toEqual({ code: 0, signal: null });
    expect(b.lines().at(-1)).toEqual({ exit: 'graceful' });
  });
});

describe('a runner whose lock connection is terminated', () => {
  it('stops applying, takes the lock again and continues without applying twice', async () => {
    const bed = await openTestBed('postgres', 'proj_lock_loss');
    const states: string[] = [];
    const runner = createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      projections: [requestsProjection],
      lockPollIntervalMs: 50,
      lagProbeIntervalMs: 0,
      onStatus: (status) => states.push(status.state),
    });
    try {
      runner.start();
      await runner.waitFor('requests', (status) => status.leader, 10_000);
      const appending = bulkAppend(bed.store, 3000, { prefix: 'req-l1', concurrency: 2 });
      await runner.waitFor('requests', (status) => status.eventsApplied > 0, 10_000);
      const terminated = await bed.database.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = $1`,
        [LOCK_APPLICATION_NAME],
      );
      expect(terminated.rowCount).toBe(1);
      await appending;
      // By count, not by a position read now: the log's visible end is cluster-wide and can
      // lag behind what the runner has already read.
      await runner.waitFor('requests', (status) => status.eventsApplied === 3000, 30_000);

      // Lost, standby, then leader again.
      const lostAt = states.indexOf('standby');
      expect(lostAt).toBeGreaterThan(0);
      expect(states.slice(lostAt)).toContain('running');
      const checkpoint = await readCheckpoint(bed.database.pool, 'read_model', 'requests');
      expect(checkpoint?.eventsApplied).toBe(3000n);
      const history = await bed.database.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM read_model.request_history',
      );
      expect(history.rows[0]?.n).toBe(3000);
    } finally {
      await runner.stop();
      await bed.close();
    }
  });
});
