import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { NODE_STREAM_PREFIX } from '../../../services/catalog/events.js';
import { defaultCorpusDir } from '../../../services/catalog/start-up.js';
import { openTestBed, type TestBed } from '../projections/support/fixtures.js';
import { makeCorpus, md } from '../../unit/catalog/fixtures.js';
import { ingestRunMeta } from './support.js';

/**
 * Ingest against a real event store: given a corpus folder, when it is ingested (again), then
 * these events and nothing more.
 */
describe('cogitave ingest (postgres)', () => {
  let bed: TestBed;
  const meta = ingestRunMeta('test:ingest');
  const nodeEvents = async () =>
    bed.store.readAll({ filter: { streamPrefixes: [NODE_STREAM_PREFIX] }, maxCount: 10_000 });

  beforeAll(async () => {
    bed = await openTestBed('postgres', 'catalog_ingest', [catalogProjection]);
  });
  afterAll(async () => {
    await bed.close();
  });

  it('ingests the shipped corpus with zero errors and compiling samples, then appends nothing on a second run', async () => {
    const first = await ingestCorpus(bed.store, {
      dir: defaultCorpusDir(),
      checkSamples: 'types',
      meta: meta(),
    });
    expect(first.errors).toEqual([]);
    expect(first.dangling).toEqual([]);
    expect(first.uncompiledSamples).toEqual([]);
    expect(first).toMatchObject({ applied: true, revised: 0, retired: 0, unchanged: 0 });
    expect(first.published).toBe(first.nodes);
    expect(first.nodes).toBeGreaterThanOrEqual(25);
    const events = await nodeEvents();
    expect(events).toHaveLength(first.nodes);
    const samples = events
      .map(
        (e) =>
          (e.data as { content: { label: string; attributes: Record<string, unknown> } }).content,
      )
      .filter((c) => c.label === 'CodeSample' && c.attributes.language === 'typescript');
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(samples.map((c) => [c.attributes.compiled, c.attributes.diagnostics])).toEqual(
      samples.map(() => [true, undefined]),
    );

    const second = await ingestCorpus(bed.store, {
      dir: defaultCorpusDir(),
      checkSamples: 'types',
      meta: meta(),
    });
    expect(second).toMatchObject({
      published: 0,
      revised: 0,
      retired: 0,
      unchanged: first.nodes,
      lastPosition: null,
    });
    expect(await nodeEvents()).toHaveLength(first.nodes);
  }, 120_000);

  it('appends nothing when one file is invalid, and names the file, field and reason', async () => {
    const corpus = await makeCorpus({
      'good.md': md({ uid: 'aon.good', label: 'Doc', title: 'Good' }),
      'bad.md': md({ uid: 'aon.bad', label: 'ADR', title: 'Missing date', status: 'accepted' }),
    });
    try {
      const before = (await nodeEvents()).length;
      const report = await ingestCorpus(bed.store, {
        dir: corpus.dir,
        meta: meta(),
        checkSamples: false,
      });
      expect(report.applied).toBe(false);
      expect(report.errors).toEqual([
        {
          file: 'bad.md',
          field: 'date',
          reason: expect.stringContaining('required for an ADR') as string,
          fix: expect.stringContaining('add date:') as string,
        },
      ]);
      expect(await nodeEvents()).toHaveLength(before);
    } finally {
      await corpus.cleanup();
    }
  });

  it('revises a changed node, retires a removed one, and a dry run only plans', async () => {
    const corpus = await makeCorpus({
      'a.md': md({ uid: 'rr.a', label: 'Doc', title: 'A' }, 'Links to @rr.b.\n'),
      'b.md': md({ uid: 'rr.b', label: 'Doc', title: 'B' }),
    });
    try {
      await ingestCorpus(bed.store, { dir: corpus.dir, meta: meta(), checkSamples: false });
      await corpus.write(
        'a.md',
        md({ uid: 'rr.a', label: 'Doc', title: 'A, revised' }, 'No links now.\n'),
      );
      await corpus.remove('b.md');
      const before = (await nodeEvents()).length;
      const plan = await ingestCorpus(bed.store, {
        dir: corpus.dir,
        meta: meta(),
        dryRun: true,
        checkSamples: false,
      });
      expect(plan.applied).toBe(false);
      expect(plan.plan.filter((entry) => entry.uid.startsWith('rr.'))).toEqual([
        { uid: 'rr.a', label: 'Doc', action: 'revise' },
        { uid: 'rr.b', label: 'Doc', action: 'retire' },
      ]);
      expect(await nodeEvents()).toHaveLength(before);

      const report = await ingestCorpus(bed.store, {
        dir: corpus.dir,
        meta: meta(),
        checkSamples: false,
      });
      expect(report).toMatchObject({ published: 0, revised: 1, unchanged: 0 });
      expect(report.retired).toBe(1);
      const a = await bed.store.readStream('node-rr.a');
      expect(a.map((e) => e.type)).toEqual(['NodePublished', 'NodeRevised']);
      expect(a[1]?.data).toMatchObject({ content: { title: 'A, revised', edges: [] } });
      const b = await bed.store.readStream('node-rr.b');
      expect(b.map((e) => e.type)).toEqual(['NodePublished', 'NodeRetired']);
      expect(b[1]?.data).toMatchObject({
        reason: 'no longer in the corpus',
        content: { title: 'B' },
      });
    } finally {
      await corpus.cleanup();
    }
  });

  it('two ingests of the same corpus at once append each change once', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i += 1)
      files[`n${i}.md`] = md({ uid: `race.n${i}`, label: 'Doc', title: `N${i}` });
    const corpus = await makeCorpus(files);
    try {
      const reports = await Promise.all([
        ingestCorpus(bed.store, { dir: corpus.dir, meta: meta(), checkSamples: false }),
        ingestCorpus(bed.store, { dir: corpus.dir, meta: meta(), checkSamples: false }),
      ]);
      expect(reports.every((r) => r.applied && r.errors.length === 0)).toBe(true);
      for (let i = 0; i < 12; i += 1) {
        const stream = await bed.store.readStream(`node-race.n${i}`);
        expect(stream.map((e) => e.type)).toEqual(['NodePublished']);
      }
    } finally {
      await corpus.cleanup();
    }
  });
});
