import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../../projections/checkpoints.js';
import { digestTables } from '../../../projections/digest.js';
import { replayProjection } from '../../../projections/replay.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { tableIndexes } from '../../../projections/shadow-indexes.js';
import type { Projection } from '../../../projections/types.js';
import { bulkAppend, openTestBed, projectLive, type TestBed } from './support/fixtures.js';

/**
 * A replay into a fresh shadow loads its tables with only the indexes writes rely on and
 * builds the others at the end: given a log, when replayed in several batches, then each
 * batch saw the load-time indexes, and the finished shadow has the live indexes (same names
 * and definitions) and the live digests.
 */
const EVENTS = 700;

type IndexView = { name: string; primary: boolean; unique: boolean; method: string }[];

const view = (indexes: Awaited<ReturnType<typeof tableIndexes>>): IndexView =>
  indexes.map(({ name, primary, unique, method }) => ({ name, primary, unique, method }));

describe('replay into a fresh shadow', () => {
  let bed: TestBed;

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'proj_replay');
    await bulkAppend(bed.store, EVENTS, { prefix: 'req-rp' });
    await projectLive(bed, EVENTS);
  });

  afterAll(async () => {
    await bed.close();
  });

  it('given a log, when replayed in batches, then indexes are built after the load and the shadow equals live', async () => {
    const schema = 'shadow_indexes';
    const seen = new Map<string, Set<string>>();
    // The requests projection, noting the shadow's indexes each batch writes against.
    const watched: Projection = {
      ...requestsProjection,
      apply: async (events, tx) => {
        for (const table of requestsProjection.tables) {
          const names = seen.get(table.name) ?? new Set<string>();
          for (const index of await tableIndexes(tx, schema, table.name)) names.add(index.name);
          seen.set(table.name, names);
        }
        return requestsProjection.apply(events, tx);
      },
    };
    const result = await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: watched,
      schema,
      batchSize: 200,
    });
    expect(result.events).toBe(EVENTS);

    // While loading: primary keys only (requests and history defer their unique indexes;
    // resources has no other unique index).
    expect(
      Object.fromEntries([...seen].map(([table, names]) => [table, [...names].sort()])),
    ).toEqual({
      requests: ['requests_pkey'],
      request_history: ['request_history_pkey'],
      resources: ['resources_pkey'],
    });
    // Afterwards: every live index, under its live name.
    for (const table of requestsProjection.tables) {
      const live = view(await tableIndexes(bed.database.pool, 'read_model', table.name));
      expect(live.length).toBeGreaterThan(1);
      expect(view(await tableIndexes(bed.database.pool, schema, table.name))).toEqual(live);
    }
    expect(await digestTables(bed.database.pool, requestsProjection, schema)).toEqual(
      await digestTables(bed.database.pool, requestsProjection),
    );
    const checkpoint = await readCheckpoint(bed.database.pool, schema, requestsProjection.name);
    expect(checkpoint?.eventsApplied).toBe(BigInt(EVENTS));
  });

  it('given a shadow replayed before, when replayed again without reset, then nothing is applied twice and the indexes stay', async () => {
    const schema = 'shadow_indexes';
    const before = await digestTables(bed.database.pool, requestsProjection, schema);
    const result = await replayProjection({
      pool: bed.database.pool,
      eventStore: bed.store,
      projection: requestsProjection,
      schema,
      reset: false,
      batchSize: 200,
    });
    expect(result.events).toBe(0);
    expect(await digestTables(bed.database.pool, requestsProjection, schema)).toEqual(before);
    const names = view(await tableIndexes(bed.database.pool, schema, 'request_history')).map(
      (index) => index.name,
    );
    expect(names).toEqual(
      view(await tableIndexes(bed.database.pool, 'read_model', 'request_history')).map(
        (index) => index.name,
      ),
    );
  });
});
