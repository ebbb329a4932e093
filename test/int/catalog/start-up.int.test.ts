import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { NODE_STREAM_PREFIX } from '../../../services/catalog/events.js';
import {
  ingestDefaultCorpusOnStart,
  type StartUpIngestParts,
} from '../../../services/catalog/start-up.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { openTestBed, silentLogger, type TestBed } from '../projections/support/fixtures.js';
import { makeCorpus, md, type CorpusFolder } from '../../unit/catalog/fixtures.js';

/** Start-up ingest as `serve` runs it: CATALOG_DIR picks the folder, `none` turns it off. */
describe('start-up ingest (postgres)', () => {
  let bed: TestBed;
  let good: CorpusFolder;
  let bad: CorpusFolder;
  const appWith = (catalogDir: string | undefined): StartUpIngestParts => ({
    config: loadConfig(catalogDir === undefined ? {} : { CATALOG_DIR: catalogDir }),
    logger: silentLogger,
    eventStore: bed.store,
  });
  const count = async () =>
    (await bed.store.readAll({ filter: { streamPrefixes: [NODE_STREAM_PREFIX] } })).length;

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'catalog_start', [catalogProjection]);
    good = await makeCorpus({ 'a.md': md({ uid: 'start.a', label: 'Doc', title: 'A' }) });
    bad = await makeCorpus({ 'u.md': md({ uid: 'start.u', label: 'Unit', title: 'No duration' }) });
  });
  afterAll(async () => {
    await bed.close();
    await good.cleanup();
    await bad.cleanup();
  });

  it('does nothing with CATALOG_DIR=none', async () => {
    expect(await ingestDefaultCorpusOnStart(appWith('none'))).toBeUndefined();
    expect(await count()).toBe(0);
  });

  it('refuses a corpus with errors, naming file, field and reason, and appends nothing', async () => {
    const error = await ingestDefaultCorpusOnStart(appWith(bad.dir)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CogitaveError);
    expect((error as CogitaveError).message).toContain(
      'u.md: durationInMinutes: is required for a Unit',
    );
    expect(await count()).toBe(0);
  });

  it('ingests the folder CATALOG_DIR names, then nothing on the next start', async () => {
    expect(await ingestDefaultCorpusOnStart(appWith(good.dir))).toMatchObject({ published: 1 });
    expect(await ingestDefaultCorpusOnStart(appWith(good.dir))).toMatchObject({
      published: 0,
      unchanged: 1,
    });
    expect(await count()).toBe(1);
  });
});
