import type { Projection } from '../../../../projections/types.js';

/** Counts events per type; a projection with no resources, beside the requests one. */
export const countsProjection: Projection = {
  name: 'test-counts',
  filter: { streamPrefixes: ['request-'] },
  migrations: {
    owner: 'projection-test-counts',
    directory: new URL('./counts-migrations/', import.meta.url),
  },
  tables: [{ name: 'test_event_counts', orderBy: ['type'] }],
  apply: async (events, tx) => {
    const counts = new Map<string, number>();
    for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    await tx.query(
      `INSERT INTO test_event_counts (type, n) SELECT * FROM unnest($1::text[], $2::bigint[])
       ON CONFLICT (type) DO UPDATE SET n = test_event_counts.n + EXCLUDED.n`,
      [[...counts.keys()], [...counts.values()]],
    );
    return { uris: [], collections: [] };
  },
};
