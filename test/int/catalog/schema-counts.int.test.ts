import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED } from '../../../services/access/grants.js';
import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import { createCatalogReadService } from '../../../services/catalog/read-service.js';
import { requestStreamId } from '../../../services/requests/events.js';
import {
  minute,
  openTestBed,
  proposed,
  requestEvent,
  silentLogger,
  type TestBed,
} from '../projections/support/fixtures.js';

/**
 * describe_schema counts what query_graph matches: given two requests in the requests read
 * model, when the schema is described, then Request counts 2 (it counted 0, reading only the
 * catalog's nodes), and a scope of one product counts that product's only.
 */
describe('describe_schema counts (postgres)', () => {
  let bed: TestBed;
  let runner: ProjectionRunner;
  beforeAll(async () => {
    bed = await openTestBed('postgres', 'schema_counts', [catalogProjection, requestsProjection]);
    runner = createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      projections: [catalogProjection, requestsProjection],
      lagProbeIntervalMs: 0,
    });
    runner.start();
    let last = '';
    for (const id of ['req-2026-0001', 'req-2026-0002']) {
      const result = await bed.store.append(
        requestStreamId(id),
        [requestEvent(proposed(id), 'agent:test', minute(1))],
        { expectedRevision: 'no_stream' },
      );
      last = result.position;
    }
    await runner.waitFor('requests', (s) => s.position !== null && s.position >= last, 20_000);
  });
  afterAll(async () => {
    await runner.stop();
    await bed.close();
  });

  it('counts Request nodes from the requests read model, within the scope', async () => {
    const catalog = createCatalogReadService({ db: bed.database.pool });
    const count = async (products: '*' | string[]): Promise<number | undefined> =>
      (await catalog.describeSchema({ ...UNRESTRICTED, products })).labels.find(
        (l) => l.label === 'Request',
      )?.count;
    expect(await count('*')).toBe(2);
    expect(await count(['docs'])).toBe(1);
    const statusDoc = (await catalog.describeSchema(UNRESTRICTED)).labels
      .find((l) => l.label === 'Request')
      ?.required.find((a) => a.name === 'status')?.description;
    expect(statusDoc).toContain('closed');
  });
});
