import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESTRICTED, type ReadScope } from '../../../services/access/grants.js';
import type { SearchHit } from '../../../services/search/service.js';
import {
  changeNotice,
  deleteNodes,
  insertEdges,
  openReadModelBed,
  startSearch,
  upsertNodes,
  type EdgeRow,
  type NodeRow,
  type ReadModelBed,
  type SearchBed,
} from '../../support/catalog-read-model.js';

/**
 * Grant-safe ranking: what a restricted caller sees of a search (hits, order, every score and
 * rank, sections, versions) is the same whether or not documents outside its grant exist.
 * Each case compares a corpus with and without the documents the caller may not read.
 */

const BASE: NodeRow[] = [
  {
    uid: 'other.cache',
    label: 'Doc',
    title: 'Frobnicate the widget cache',
    summary: 'How the cache frobnicates entries.',
    body: '# Eviction\nThe cache will frobnicate old widget entries.\n# Sizing\nSize the widget cache by traffic.',
    product: 'other',
  },
  {
    uid: 'other.intro',
    label: 'Doc',
    title: 'Widgets in a nutshell',
    summary: 'What a widget is.',
    body: 'A widget renders a panel; see the cache page to frobnicate it.',
    product: 'other',
  },
  {
    uid: 'shared.glossary',
    label: 'Doc',
    title: 'Glossary',
    summary: 'Terms every product uses.',
    body: 'Frobnicate: to tweak a widget until it behaves.',
    product: null,
  },
];
const BASE_EDGES: EdgeRow[] = [['other.intro', 'relatedTo', 'other.cache']];

/** Product `secret`: two pages sharing the word, linked to the caller's page. */
const SECRET: NodeRow[] = [
  {
    uid: 'secret.one',
    label: 'Doc',
    title: 'Secret frobnicate plans',
    body: 'We frobnicate the secret widget twice: frobnicate, frobnicate.',
    product: 'secret',
  },
  {
    uid: 'secret.two',
    label: 'Doc',
    title: 'More frobnicate notes',
    body: 'Frobnicate widget cache entries in the secret product.',
    product: 'secret',
  },
];
const SECRET_EDGES: EdgeRow[] = [
  ['secret.one', 'xref', 'other.cache'],
  ['secret.two', 'xref', 'other.intro'],
  ['secret.one', 'xref', 'secret.two'],
];

/** The caller's own product, but a label (ADR) its types grant leaves out. */
const DECISIONS: NodeRow[] = [
  {
    uid: 'other.adr-1',
    label: 'ADR',
    title: 'Frobnicate the cache nightly',
    body: 'We decided to frobnicate the widget cache every night.',
    product: 'other',
  },
  {
    uid: 'other.adr-2',
    label: 'ADR',
    title: 'Widget cache size',
    body: 'Frobnicate sizing: the widget cache holds a day of entries.',
    product: 'other',
  },
];
const DECISION_EDGES: EdgeRow[] = [['other.adr-1', 'relatedTo', 'other.cache']];

const ONLY_OTHER: ReadScope = { products: ['other'], types: '*' };
const ONLY_DOCS: ReadScope = { products: '*', types: ['doc'] };
const QUERIES = ['frobnicate', 'frobnicate widget cache', 'widget', 'secret frobnicate plans'];

const startBed = async (
  label: string,
  nodes: readonly NodeRow[],
  edges: readonly EdgeRow[],
): Promise<{ bed: ReadModelBed; running: SearchBed }> => {
  const bed = await openReadModelBed(label);
  await upsertNodes(bed.database, nodes);
  await insertEdges(bed.database, edges);
  return { bed, running: await startSearch(bed) };
};

/** Every query's hits for the scope, as the caller receives them. */
const answers = async (running: SearchBed, scope: ReadScope): Promise<SearchHit[][]> =>
  Promise.all(QUERIES.map((query) => running.search.search(scope, { query })));

describe('search ranking within a read scope', () => {
  const beds: { bed: ReadModelBed; running: SearchBed }[] = [];
  let base: SearchBed;
  let withSecret: SearchBed;
  let withDecisions: SearchBed;

  beforeAll(async () => {
    const started = await Promise.all([
      startBed('grants_base', BASE, BASE_EDGES),
      startBed('grants_secret', [...BASE, ...SECRET], [...BASE_EDGES, ...SECRET_EDGES]),
      startBed('grants_adr', [...BASE, ...DECISIONS], [...BASE_EDGES, ...DECISION_EDGES]),
    ]);
    beds.push(...started);
    [base, withSecret, withDecisions] = started.map((started) => started.running) as [
      SearchBed,
      SearchBed,
      SearchBed,
    ];
  });

  afterAll(async () => {
    for (const { bed, running } of beds) {
      await running.close();
      await bed.close();
    }
  });

  it('given pages of a product the caller may not read, when it searches, then its hits are exactly those of a corpus without them', async () => {
    const without = await answers(base, ONLY_OTHER);
    const withThem = await answers(withSecret, ONLY_OTHER);
    expect(withThem).toEqual(without);
    // The comparison means something: the caller finds its page with a real score, and the
    // unrestricted reader's score of that page does move with the secret pages.
    const first = without[0]?.find((hit) => hit.uid === 'other.cache');
    expect(first?.scores.bm25).toBeGreaterThan(0);
    const score = async (running: SearchBed): Promise<number | undefined> =>
      (await running.search.search(UNRESTRICTED, { query: 'frobnicate' })).find(
        (hit) => hit.uid === 'other.cache',
      )?.scores.bm25;
    expect(await score(withSecret)).not.toBe(await score(base));
  });

  it('given pages of a label the caller may not read, when it searches, then its hits are exactly those of a corpus without them', async () => {
    expect(await answers(withDecisions, ONLY_DOCS)).toEqual(await answers(base, ONLY_DOCS));
    const both: ReadScope = { products: ['other'], types: ['doc'] };
    expect(await answers(withDecisions, both)).toEqual(await answers(base, both));
  });

  it('given the secret pages added and removed through the change feed, when the caller searches, then nothing it sees moves', async () => {
    const before = await answers(base, ONLY_OTHER);
    const bed = beds[0]?.bed as ReadModelBed;
    await upsertNodes(bed.database, SECRET);
    await insertEdges(bed.database, SECRET_EDGES);
    base.feed.publishLocal(changeNotice(SECRET));
    await base.search.settled();
    const unrestricted = await base.search.search(UNRESTRICTED, { query: 'frobnicate' });
    expect(unrestricted.map((hit) => hit.uid)).toContain('secret.one');
    expect(await answers(base, ONLY_OTHER)).toEqual(before);
    await deleteNodes(
      bed.database,
      SECRET.map((node) => node.uid),
    );
    base.feed.publishLocal(changeNotice(SECRET));
    await base.search.settled();
    expect(await answers(base, ONLY_OTHER)).toEqual(before);
  });

  it('given the unrestricted reader, when it searches, then every signal is used (the vector list too)', async () => {
    const hits = await withSecret.search.search(UNRESTRICTED, { query: 'frobnicate widget' });
    expect(hits.some((hit) => hit.ranks.vector !== null)).toBe(true);
    const restricted = await withSecret.search.search(ONLY_OTHER, { query: 'frobnicate widget' });
    // The built-in embedder is fitted on every document, so a restricted caller goes without.
    expect(restricted.every((hit) => hit.ranks.vector === null)).toBe(true);
  });
});
