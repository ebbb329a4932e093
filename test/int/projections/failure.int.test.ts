import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Position } from '../../../services/event-store/types.js';
import { requestStreamId } from '../../../services/requests/events.js';
import { readCheckpoint } from '../../../projections/checkpoints.js';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection } from '../../../projections/replay.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import type { Projection } from '../../../projections/types.js';
import { countsProjection } from './support/counts.js';
import { minute, openTestBed, proposed, requestEvent, type TestBed } from './support/fixtures.js';

/**
 * Exactly once under handler failure: a handler that throws on one event stops its projection
 * at that event (not the other projections), keeps what was applied before it, applies
 * nothing after it, and continues from there once fixed and restarted.
 */
describe.each(['postgres', 'pglite'] as const)('a failing handler (%s)', (kind) => {
  let bed: TestBed;
  let runner: ProjectionRunner;
  let failOn: string | undefined;
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );

  const flaky: Projection = {
    ...requestsProjection,
    apply: async (events, tx) => {
      if (events.some((event) => event.id === failOn)) throw new Error('boom: handler bug');
      return requestsProjection.apply(events, tx);
    },
  };

  const reached = (name: string, position: Position) =>
    runner.waitFor(name, (s) => s.position !== null && s.position >= position, 20_000);

  beforeAll(async () => {
    bed = await openTestBed(kind, 'proj_failure', [requestsProjection, countsProjection]);
    runner = createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger,
      projections: [flaky, countsProjection],
      lagProbeIntervalMs: 100,
    });
    runner.start();
  });

  afterAll(async () => {
    await runner.stop();
    await bed.close();
  });

  it('stops that projection at the failing event and keeps everything before it', async () => {
    const a = await bed.store.append(
      requestStreamId('req-a'),
      [requestEvent(proposed('req-a'), 'agent:x', minute(1))],
      { expectedRevision: 'no_stream' },
    );
    await reached('requests', a.position);

    // One append: the three events reach the handler in one batch.
    const events = [
      requestEvent(proposed('req-b'), 'agent:x', minute(2)),
      requestEvent(
        {
          type: 'IntakeIssueOpened',
          data: {
            requestId: 'req-b',
            repository: 'o/r',
            issueNumber: 3,
            issueUrl: 'https://github.com/o/r/issues/3',
          },
        },
        'agent:x',
        minute(3),
      ),
      requestEvent(
        {
          type: 'RequestWithdrawn',
          data: { requestId: 'req-b', withdrawnBy: 'agent:x', reason: 'no' },
        },
        'agent:x',
        minute(4),
      ),
    ];
    failOn = events[1]!.id;
    await bed.store.append(requestStreamId('req-b'), events, { expectedRevision: 'no_stream' });
    const stored = await bed.store.readStream(requestStreamId('req-b'));

    const stopped = await runner.waitFor('requests', (s) => s.state === 'stopped', 20_000);
    expect(stopped.error).toMatchObject({
      position: stored[1]!.position,
      streamId: 'request-req-b',
      revision: '1',
      type: 'IntakeIssueOpened',
      eventId: failOn,
      message: 'boom: handler bug',
    });
    expect(stopped.position).toBe(stored[0]!.position);
    expect(stopped.leader).toBe(false);

    const checkpoint = await readCheckpoint(bed.database.pool, 'read_model', 'requests');
    expect(checkpoint?.position).toBe(stored[0]!.position);
    expect(checkpoint?.eventsApplied).toBe(2n);
    expect(checkpoint?.error).toMatchObject({
      position: stored[1]!.position,
      type: 'IntakeIssueOpened',
    });

    const history = await bed.database.pool.query<{ request_id: string; stream_revision: string }>(
      'SELECT request_id, stream_revision FROM read_model.request_history ORDER BY position',
    );
    expect(history.rows).toEqual([
      { request_id: 'req-a', stream_revision: '0' },
      { request_id: 'req-b', stream_revision: '0' },
    ]);
    const b = await bed.database.pool.query(
      'SELECT stage, version FROM read_model.requests WHERE request_id = $1',
      ['req-b'],
    );
    expect(b.rows).toEqual([{ stage: 'proposed', version: '0' }]);

    const line = logs.find((entry) => String(entry.msg).startsWith('projection stopped'));
    expect(line).toMatchObject({
      level: 50,
      projection: 'requests',
      position: stored[1]!.position,
      streamId: 'request-req-b',
      revision: '1',
      type: 'IntakeIssueOpened',
    });
    expect(runner.renderPrometheus()).toContain(
      'cogitave_projection_status{projection="requests",state="stopped"} 1',
    );
  });

  it('does not stop the other projections, nor skip the event', async () => {
    const c = await bed.store.append(
      requestStreamId('req-c'),
      [requestEvent(proposed('req-c'), 'agent:x', minute(5))],
      { expectedRevision: 'no_stream' },
    );
    await reached('test-counts', c.position);
    const counts = await bed.database.pool.query(
      'SELECT type, n FROM read_model.test_event_counts ORDER BY type',
    );
    expect(counts.rows).toEqual([
      { type: 'IntakeIssueOpened', n: '1' },
      { type: 'RequestProposed', n: '3' },
      { type: 'RequestWithdrawn', n: '1' },
    ]);
    // The stopped projection falls behind, visibly: the failing event and the two after it.
    // The lag probe runs on its own timer: wait for a probe taken after event c was visible.
    const behind = await runner.waitFor(
      'requests',
      (s) => s.lagEvents === 3 && s.headPosition === c.position,
      10_000,
    );
    expect(behind).toMatchObject({ state: 'stopped', headPosition: c.position });
    expect(behind.lagSeconds).toBeGreaterThan(0);
    expect(runner.renderPrometheus()).toContain(
      'cogitave_projection_lag_events{projection="requests"} 3',
    );
    const rows = await bed.database.pool.query(
      'SELECT count(*)::int AS n FROM read_model.request_history',
    );
    expect(rows.rows[0]).toEqual({ n: 2 });
  });

  it('continues from the failing event once fixed and restarted', async () => {
    failOn = undefined;
    expect(runner.restart('requests')).toBe(true);
    expect(runner.restart('test-counts')).toBe(false);
    const status = await runner.waitFor('requests', (s) => s.eventsApplied === 5, 20_000);
    expect(status.error).toBeNull();

    const checkpoint = await readCheckpoint(bed.database.pool, 'read_model', 'requests');
    expect(checkpoint?.eventsApplied).toBe(5n);
    expect(checkpoint?.error).toBeNull();
    const stages = await bed.database.pool.query<{ stage: string }>(
      'SELECT stage FROM read_model.requests ORDER BY request_id',
    );
    expect(stages.rows).toEqual([
      { stage: 'proposed' },
      { stage: 'withdrawn' },
      { stage: 'proposed' },
    ]);

    await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: requestsProjection,
      schema: 'shadow_failure',
    });
    expect(await digestTables(bed.database.pool, requestsProjection, 'shadow_failure')).toEqual(
      await digestTables(bed.database.pool, requestsProjection),
    );
  });
});
