import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeContentHash, type NodeContent } from '../../../services/catalog/content.js';
import { nodeEventId } from '../../../services/catalog/decide.js';
import {
  ingestCorpus,
  listSources,
  removeSource,
  type RetireConfirmation,
} from '../../../services/catalog/ingest.js';
import { SHIPPED_SOURCE } from '../../../services/catalog/sources.js';
import { defaultCorpusDir } from '../../../services/catalog/start-up.js';
import type { TestBed } from '../projections/support/fixtures.js';
import { ingestRunMeta, openCatalogBed, type CatalogBed } from './support.js';
import { makeCorpus, md, type CorpusFolder } from '../../unit/catalog/fixtures.js';

/**
 * Sources against a real event store and read model: every ingest revises and retires only
 * its own source; the shipped corpus is one source among others; a retirement of more than a
 * few pages asks first when someone can be asked.
 */
describe('catalog sources (postgres)', () => {
  let catalog: CatalogBed;
  let bed: TestBed;
  let site: CorpusFolder;
  let other: CorpusFolder;
  const meta = ingestRunMeta('test:sources');
  const livePages = async (source: string): Promise<string[]> =>
    (
      await bed.database.pool.query<{ uid: string }>(
        `SELECT uid FROM read_model.catalog_nodes WHERE source = $1 AND label <> 'CodeSample' ORDER BY uid`,
        [source],
      )
    ).rows.map((row) => row.uid);
  const caughtUp = (position: string | null): Promise<void> => catalog.caughtUp(position);

  beforeAll(async () => {
    catalog = await openCatalogBed('catalog_sources');
    bed = catalog.bed;
    const pages: Record<string, string> = {};
    for (let i = 1; i <= 8; i += 1) pages[`guide/page-${i}.md`] = `# Page ${i}\n\nText ${i}.\n`;
    site = await makeCorpus({
      ...pages,
      'index.md': '# My site\n\nSee [page 1](guide/page-1.md).\n',
    });
    other = await makeCorpus({ 'a.md': '# Other\n' });
  });
  afterAll(async () => {
    await catalog.close();
    await site.cleanup();
    await other.cleanup();
  });

  it('a serve start-up after a user ingest retires none of the user’s pages', async () => {
    const user = await ingestCorpus(bed.store, {
      dir: site.dir,
      source: 'mysite',
      checkSamples: false,
      meta: meta(),
    });
    expect(user).toMatchObject({ applied: true, source: 'mysite', published: 9, retired: 0 });
    const shipped = await ingestCorpus(bed.store, {
      dir: defaultCorpusDir(),
      source: SHIPPED_SOURCE,
      checkSamples: false,
      meta: meta(),
    });
    expect(shipped).toMatchObject({ applied: true, retired: 0 });
    const again = await ingestCorpus(bed.store, {
      dir: defaultCorpusDir(),
      source: SHIPPED_SOURCE,
      checkSamples: false,
      meta: meta(),
    });
    expect(again).toMatchObject({ published: 0, revised: 0, retired: 0 });
    await caughtUp(again.lastPosition ?? shipped.lastPosition);
    expect(await livePages('mysite')).toHaveLength(9);
    expect((await livePages(SHIPPED_SOURCE)).length).toBeGreaterThan(20);
  });

  it('another folder is another source: its ingest leaves the first one alone', async () => {
    const report = await ingestCorpus(bed.store, {
      dir: other.dir,
      source: 'other',
      checkSamples: false,
      meta: meta(),
    });
    expect(report).toMatchObject({ published: 1, retired: 0 });
    await caughtUp(report.lastPosition);
    expect(await livePages('mysite')).toHaveLength(9);
    expect(await livePages('other')).toEqual(['other/a']);
  });

  it('a uid another source owns is an error that appends nothing', async () => {
    const clash = await makeCorpus({
      'x.md': md({ uid: 'mysite/guide/page-1', title: 'Mine now' }),
    });
    try {
      const report = await ingestCorpus(bed.store, {
        dir: clash.dir,
        source: 'clash',
        checkSamples: false,
        meta: meta(),
      });
      expect(report.applied).toBe(false);
      expect(report.errors).toEqual([
        expect.objectContaining({
          field: 'uid',
          reason: '"mysite/guide/page-1" belongs to source mysite',
          fix: expect.stringContaining('cogitave sources remove mysite') as string,
        }),
      ]);
    } finally {
      await clash.cleanup();
    }
  });

  it('asks before retiring more than a few pages: declined appends nothing, accepted retires them', async () => {
    for (let i = 1; i <= 7; i += 1) await site.remove(`guide/page-${i}.md`);
    const questions: RetireConfirmation[] = [];
    const declined = await ingestCorpus(bed.store, {
      dir: site.dir,
      source: 'mysite',
      checkSamples: false,
      meta: meta(),
      confirmRetire: (question) => {
        questions.push(question);
        return Promise.resolve(false);
      },
    });
    expect(declined).toMatchObject({ applied: false, declined: true, retired: 7 });
    expect(questions).toEqual([
      {
        source: 'mysite',
        pages: 7,
        nodes: 7,
        examples: expect.arrayContaining(['mysite/guide/page-1']) as string[],
      },
    ]);
    expect(await livePages('mysite')).toHaveLength(9);
    const accepted = await ingestCorpus(bed.store, {
      dir: site.dir,
      source: 'mysite',
      checkSamples: false,
      meta: meta(),
      confirmRetire: () => Promise.resolve(true),
    });
    expect(accepted).toMatchObject({ applied: true, retired: 7 });
    await caughtUp(accepted.lastPosition);
    expect(await livePages('mysite')).toEqual(['mysite/guide/page-8', 'mysite/index']);
    expect(await livePages('other')).toEqual(['other/a']);
  });

  it('claims a node from before sources; only `sources remove legacy` retires the unclaimed', async () => {
    const old = (uid: string): NodeContent => ({
      uid,
      label: 'Doc',
      title: uid,
      summary: '',
      body: '',
      product: null,
      monikers: ['latest'],
      attributes: {},
      edges: [],
      sourcePath: `${uid}.md`,
    });
    for (const content of [old('legacy.claimed'), old('legacy.kept')]) {
      const contentHash = nodeContentHash(content);
      await bed.store.append(
        `node-${content.uid}`,
        [
          {
            id: nodeEventId(content.uid, 0n, 'NodePublished', contentHash),
            type: 'NodePublished',
            data: { uid: content.uid, contentHash, content },
            metadata: {
              actor: 'test',
              correlationId: 'c',
              causationId: 'c',
              at: '2026-01-01T00:00:00.000Z',
            },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
    }
    await other.write('claimed.md', md({ uid: 'legacy.claimed', title: 'Claimed' }));
    const claim = await ingestCorpus(bed.store, {
      dir: other.dir,
      source: 'other',
      checkSamples: false,
      meta: meta(),
    });
    expect(claim.plan.find((entry) => entry.uid === 'legacy.claimed')?.action).toBe('revise');
    expect(claim.retired).toBe(0);
    const sources = await listSources(bed.store);
    expect(sources.map(({ name, pages }) => [name, pages])).toEqual([
      [SHIPPED_SOURCE, expect.any(Number)],
      ['legacy', 1],
      ['mysite', 2],
      ['other', 2],
    ]);
    expect(sources.find((s) => s.name === 'mysite')).toMatchObject({
      root: site.dir,
      generator: 'markdown',
    });
    const removed = await removeSource(bed.store, { source: 'legacy', meta: meta() });
    expect(removed).toMatchObject({ applied: true, retired: 1 });
    expect((await bed.store.readStream('node-legacy.kept')).map((e) => e.type)).toEqual([
      'NodePublished',
      'NodeRetired',
    ]);
  });

  it('removing a source retires its nodes and its read-model row; others stay', async () => {
    const report = await removeSource(bed.store, { source: 'mysite', meta: meta() });
    expect(report).toMatchObject({ applied: true, retired: 2, pages: 2 });
    await caughtUp(report.lastPosition);
    expect(await livePages('mysite')).toEqual([]);
    expect(await livePages('other')).toEqual(['legacy.claimed', 'other/a']);
    const rows = await bed.database.pool.query<{ name: string }>(
      'SELECT name FROM read_model.catalog_sources ORDER BY name',
    );
    expect(rows.rows.map((row) => row.name)).toEqual([SHIPPED_SOURCE, 'other']);
    expect((await listSources(bed.store)).map((s) => s.name)).toEqual([SHIPPED_SOURCE, 'other']);
  });

  it('skips a folder its source last ingested unchanged (same files and settings); any change, or a removal in between, reads it again', async () => {
    const folder = await makeCorpus({ 'index.md': '# Notes\n\nOne.\n', 'b.md': '# B\n' });
    try {
      const run = (checkSamples: false | 'syntax' = false) =>
        ingestCorpus(bed.store, {
          dir: folder.dir,
          source: 'fingerprinted',
          checkSamples,
          skipIfUnchanged: true,
          meta: meta(),
        });
      const first = await run();
      expect(first).toMatchObject({ upToDate: false, published: 2 });
      const again = await run();
      expect(again).toMatchObject({
        upToDate: true,
        applied: true,
        nodes: 2,
        unchanged: 2,
        published: 0,
        lastPosition: null,
      });
      // Other settings decide other nodes: read again (and nothing to change).
      expect(await run('syntax')).toMatchObject({ upToDate: false, unchanged: 2 });
      await folder.write('b.md', '# B\n\nMore.\n');
      expect(await run()).toMatchObject({ upToDate: false, revised: 1 });
      expect(await run()).toMatchObject({ upToDate: true });
      // An ingest without the option records no fingerprint: the next one reads the folder.
      await ingestCorpus(bed.store, {
        dir: folder.dir,
        source: 'fingerprinted',
        checkSamples: false,
        meta: meta(),
      });
      await folder.write('c.md', '# C\n');
      expect(await run()).toMatchObject({ upToDate: false, published: 1 });
      const removed = await removeSource(bed.store, { source: 'fingerprinted', meta: meta() });
      expect(removed.retired).toBe(3);
      const back = await run();
      expect(back).toMatchObject({ upToDate: false, published: 3 });
      await caughtUp(back.lastPosition);
      expect(await livePages('fingerprinted')).toHaveLength(3);
    } finally {
      await folder.cleanup();
    }
  });
});
