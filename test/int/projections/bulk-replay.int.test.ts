import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../../projections/checkpoints.js';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection, type ReplayOptions } from '../../../projections/replay.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { dropShadow } from '../../../projections/shadow.js';
import { tableIndexes } from '../../../projections/shadow-indexes.js';
import type { Position } from '../../../services/event-store/types.js';
import { requestStreamId } from '../../../services/requests/events.js';
import {
  bulkAppend,
  minute,
  openTestBed,
  projectLive,
  proposed,
  requestEvent,
  type TestBed,
} from './support/fixtures.js';

/**
 * The bulk rebuild (fold in memory, COPY every row once, indexes afterwards), in this thread
 * and in worker threads by stream partition, must give exactly the rows of the runner's
 * batches: given a log of every Request event type, when rebuilt each way, then the digests,
 * checkpoints and indexes are the live ones.
 */
const EVENTS = 1500;

const indexNames = async (bed: TestBed, schema: string, table: string): Promise<string[]> =>
  (await tableIndexes(bed.database.pool, schema, table)).map((index) => index.name).sort();

describe('bulk replay', () => {
  let bed: TestBed;
  let live: Awaited<ReturnType<typeof digestTables>>;
  let livePosition: Position | null;

  const replay = (schema: string, options: Partial<ReplayOptions> = {}) =>
    replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: requestsProjection,
      schema,
      bulk: true,
      ...options,
    });

  const parallel = (workers: number): Partial<ReplayOptions> => ({
    parallel: { connectionString: bed.url ?? '', workers },
  });

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'proj_bulk');
    await bulkAppend(bed.store, EVENTS, { prefix: 'req-bulk' });
    await projectLive(bed, EVENTS);
    live = await digestTables(bed.database.pool, requestsProjection);
    livePosition =
      (await readCheckpoint(bed.database.pool, 'read_model', 'requests'))?.position ?? null;
  });

  afterAll(async () => {
    await bed.close();
  });

  it.each([
    ['in this thread', 'shadow_bulk_1', {}],
    ['in 3 worker threads', 'shadow_bulk_3', { parallel: true }],
  ] as const)(
    'given a log, when rebuilt in bulk %s, then rows, checkpoint and indexes equal the live ones',
    async (_, schema, how) => {
      const result = await replay(schema, 'parallel' in how ? parallel(3) : {});
      expect(result).toEqual({ events: EVENTS, position: livePosition });
      expect(await digestTables(bed.database.pool, requestsProjection, schema)).toEqual(live);
      const checkpoint = await readCheckpoint(bed.database.pool, schema, 'requests');
      expect(checkpoint?.position).toBe(livePosition);
      expect(checkpoint?.eventsApplied).toBe(BigInt(EVENTS));
      for (const table of requestsProjection.tables) {
        expect(await indexNames(bed, schema, table.name)).toEqual(
          await indexNames(bed, 'read_model', table.name),
        );
      }
    },
  );

  it('given an earlier position, when rebuilt in bulk up to it, then the shadow equals the batch path up to it', async () => {
    const until = (await bed.store.readAll({ maxCount: 600 })).at(-1)?.position;
    expect(until).toBeDefined();
    const batch = await replay('shadow_until_batch', { bulk: false, until: until! });
    const bulk = await replay('shadow_until_bulk', { ...parallel(2), until: until! });
    expect(bulk).toEqual(batch);
    expect(bulk.events).toBe(600);
    expect(await digestTables(bed.database.pool, requestsProjection, 'shadow_until_bulk')).toEqual(
      await digestTables(bed.database.pool, requestsProjection, 'shadow_until_batch'),
    );
  });

  it('given a malformed event, when rebuilt in bulk (in threads or not), then it fails naming the event and leaves no checkpoint', async () => {
    const bad = await openTestBed('postgres', 'proj_bulk_bad');
    try {
      await bulkAppend(bad.store, 300, { prefix: 'req-bad' });
      const broken = requestEvent(proposed('req-broken'), 'agent:test', minute(1));
      await bad.store.append(
        requestStreamId('req-broken'),
        [{ ...broken, data: { ...(broken.data as object), priority: 'urgent!' } }],
        { expectedRevision: 'no_stream' },
      );
      for (const options of [{}, { parallel: { connectionString: bad.url ?? '', workers: 2 } }]) {
        await dropShadow(bad.database.pool, requestsProjection, 'shadow_bad');
        const failed = replayProjection({
          pool: bad.database.pool,
          eventStore: bad.store,
          projection: requestsProjection,
          schema: 'shadow_bad',
          bulk: true,
          ...options,
        });
        await expect(failed).rejects.toThrow(/RequestProposed has invalid data \(priority: /);
        const checkpoint = await readCheckpoint(bad.database.pool, 'shadow_bad', 'requests');
        expect(checkpoint?.position ?? null).toBeNull();
      }
      // Nothing was applied, so a resume starts over (and fails on the same event again)
      // instead of adding to whatever an interrupted load left behind.
      await expect(
        replayProjection({
          pool: bad.database.pool,
          eventStore: bad.store,
          projection: requestsProjection,
          schema: 'shadow_bad',
          bulk: false,
          reset: false,
        }),
      ).rejects.toThrow(/RequestProposed has invalid data/);
    } finally {
      await bad.close();
    }
  });
});
