import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED } from '../../../services/access/grants.js';
import type { ChangeFeed } from '../../../projections/change-feed.js';
import type { SearchService } from '../../../services/search/service.js';
import {
  changeNotice,
  deleteNodes,
  openReadModelBed,
  startSearch,
  upsertNodes,
  type ReadModelBed,
  type SearchBed,
  type NodeRow,
} from '../../support/catalog-read-model.js';

/**
 * Versions of a page are one hit: a search without a moniker finds the page in its newest
 * released version (older ones neither take places in the limit nor stand for it), a moniker
 * finds that version, and the hit lists every version the caller may read.
 */
const version = (moniker: string, extra = ''): NodeRow => ({
  uid: `site/${moniker}/guide/replay`,
  label: 'Doc',
  title: 'Replaying projections',
  summary: `Rebuild read models from the log (${moniker}).`,
  body: `# Replay\nReplay rebuilds every projection from position zero into a shadow schema. ${extra}`,
  product: 'core',
  monikers: [moniker],
  page: '/guide/replay',
});

const NODES: NodeRow[] = [
  version('v1', 'The old replay command took a flag for each projection.'),
  version('v2'),
  version('v3'),
  version('draft'),
  ...Array.from({ length: 6 }, (_, i) => ({
    uid: `site/v3/guide/other-${i}`,
    label: 'Doc',
    title: `Replay notes ${i}`,
    summary: 'Notes about replaying projections.',
    body: `Replay projection notes, part ${i}.`,
    product: 'core',
    monikers: ['v3'],
    page: `/guide/other-${i}`,
  })),
  // A page whose versions belong to different products: who may read which decides.
  {
    uid: 'mixed/v1/billing',
    label: 'Doc',
    title: 'Billing replay',
    summary: 'Replaying billing projections.',
    body: 'Billing replay of projections.',
    product: 'billing-old',
    monikers: ['v1'],
    page: '/billing',
  },
  {
    uid: 'mixed/v2/billing',
    label: 'Doc',
    title: 'Billing replay',
    summary: 'Replaying billing projections.',
    body: 'Billing replay of projections.',
    product: 'billing',
    monikers: ['v2'],
    page: '/billing',
  },
];

describe('search over versions of pages', () => {
  let bed: ReadModelBed;
  let feed: ChangeFeed;
  let search: SearchService;
  let running: SearchBed;

  beforeAll(async () => {
    bed = await openReadModelBed('search_versions');
    await upsertNodes(bed.database, NODES);
    running = await startSearch(bed);
    ({ feed, search } = running);
  });

  afterAll(async () => {
    await running.close();
    await bed.close();
  });

  it('given four versions of a page, when searched without a moniker, then one hit stands for them: the newest released', async () => {
    const hits = await search.search(UNRESTRICTED, { query: 'replay shadow schema', limit: 5 });
    const replay = hits.filter((hit) => hit.page === '/guide/replay');
    expect(replay.map((hit) => hit.uid)).toEqual(['site/v3/guide/replay']);
    expect(replay[0]?.versions).toEqual(['v3', 'v2', 'v1', 'draft']);
    // The other places of the limit go to other pages, never to another version.
    expect(new Set(hits.map((hit) => hit.page)).size).toBe(hits.length);
    expect(hits).toHaveLength(5);
  });

  it('given a moniker, when searched, then that version answers, even with words only it has', async () => {
    const hits = await search.search(UNRESTRICTED, {
      query: 'old replay command flag',
      moniker: 'v1',
    });
    expect(hits[0]?.uid).toBe('site/v1/guide/replay');
    // Without the moniker the newest version stands for the page.
    const newest = await search.search(UNRESTRICTED, { query: 'old replay command flag' });
    expect(newest.map((hit) => hit.uid)).not.toContain('site/v1/guide/replay');
  });

  it('given versions in products a caller reads only one of, when searched, then the caller finds the version it may read', async () => {
    const old = await search.search(
      { products: ['billing-old'], types: '*' },
      { query: 'billing replay' },
    );
    expect(old.map((hit) => hit.uid)).toEqual(['mixed/v1/billing']);
    expect(old[0]?.versions).toEqual(['v1']);
    const both = await search.search(UNRESTRICTED, { query: 'billing replay' });
    expect(both.filter((hit) => hit.page === '/billing').map((hit) => hit.uid)).toEqual([
      'mixed/v2/billing',
    ]);
  });

  it('given the newest version removed, when the change feed announces it, then the next newest stands for the page', async () => {
    const v3 = NODES.find((node) => node.uid === 'site/v3/guide/replay') as NodeRow;
    await deleteNodes(bed.database, [v3.uid]);
    feed.publishLocal(changeNotice([v3]));
    await search.settled();
    const hits = await search.search(UNRESTRICTED, { query: 'replay shadow schema' });
    const replay = hits.filter((hit) => hit.page === '/guide/replay');
    expect(replay.map((hit) => hit.uid)).toEqual(['site/v2/guide/replay']);
    expect(replay[0]?.versions).toEqual(['v2', 'v1', 'draft']);
    // Back again: it stands for the page once more.
    await upsertNodes(bed.database, [v3]);
    feed.publishLocal(changeNotice([v3]));
    await search.settled();
    const again = await search.search(UNRESTRICTED, { query: 'replay shadow schema' });
    expect(again.filter((hit) => hit.page === '/guide/replay').map((hit) => hit.uid)).toEqual([
      'site/v3/guide/replay',
    ]);
  });
});
