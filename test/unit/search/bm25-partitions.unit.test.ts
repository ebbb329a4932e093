import { describe, expect, it } from 'vitest';
import { createBm25Index, type Bm25Index } from '../../../services/search/bm25.js';
import { PartitionStatistics } from '../../../services/search/bm25-partitions.js';
import { createDocumentGraph, type GraphEdge } from '../../../services/search/graph.js';
import { lexicalTop } from '../../../services/search/retrieval-lexical.js';

type Doc = readonly [id: string, partition: string, body: readonly string[]];

const PROXIMITY = { ordered: 0.1 / 0.85, unordered: 0.05 / 0.85, window: 8 };
const indexOf = (documents: readonly Doc[]): Bm25Index => {
  const index = createBm25Index({
    fields: { body: 1 },
    params: { k1: 1.2, b: 0.75 },
    proximity: PROXIMITY,
  });
  for (const [id, partition, body] of documents) index.set(id, { body }, false, partition);
  return index;
};
const onlyOther = (partition: string): boolean => partition === 'other';

const MINE: Doc[] = [
  ['other.cache', 'other', ['frobnicate', 'widget', 'cache', 'frobnicate']],
  ['other.intro', 'other', ['widget', 'panel', 'cache', 'page']],
];
const SECRET: Doc[] = [
  ['secret.one', 'secret', ['frobnicate', 'widget', 'frobnicate', 'frobnicate', 'plans']],
  ['secret.two', 'secret', ['frobnicate', 'widget', 'cache', 'entries', 'secret', 'product']],
];

describe('partition statistics', () => {
  it('given documents counted in and out of partitions, when scoped, then documents, lengths and frequencies sum over the admitted ones', () => {
    const stats = new PartitionStatistics();
    const other = stats.numberOf('other');
    const secret = stats.numberOf('secret');
    stats.count(other, 4, [0, 1], 3, 1);
    stats.count(secret, 5, [0, 2], 3, 1);
    stats.count(secret, 6, [0], 3, 1);
    stats.count(secret, 6, [0], 3, -1);
    expect(stats.numberOf('other')).toBe(other);
    const mine = stats.scoped(stats.mask(onlyOther));
    expect([mine.documents, mine.totalLength]).toEqual([1, 4]);
    expect([0, 1, 2].map((term) => mine.documentFrequency(term))).toEqual([1, 1, 0]);
    const both = stats.scoped(stats.mask(() => true));
    expect([both.documents, both.totalLength]).toEqual([2, 9]);
    expect([0, 1, 2].map((term) => both.documentFrequency(term))).toEqual([2, 1, 1]);
    expect(stats.partition('secret')).toEqual({ documents: 1, totalLength: 5 });
  });

  it('given another partition sharing the query words, when a scoped search runs, then scores equal those of an index without it', () => {
    const alone = indexOf(MINE);
    const shared = indexOf([SECRET[0] as Doc, ...MINE, SECRET[1] as Doc]);
    const query = new Map([
      ['frobnicate', 1],
      ['widget', 1],
    ]);
    const pairs = [['frobnicate', 'widget'] as const];
    const scoped = shared.scope(onlyOther);
    expect(scoped.size).toBe(2);
    expect(scoped.documentFrequency('frobnicate')).toBe(1);
    expect(scoped.partitions).toEqual(['other']);
    const expected = alone.top(query, { limit: 10, pairs });
    expect(shared.top(query, { limit: 10, pairs, inScope: scoped.inScope })).toEqual(expected);
    // Unscoped, the secret pages do move the caller's scores (and are found).
    expect(shared.top(query, { limit: 10, pairs })).not.toEqual(expected);
  });

  it('given documents removed and re-added, when a scoped search runs, then the statistics follow', () => {
    const index = indexOf([...MINE, ...SECRET]);
    index.remove('secret.one');
    index.set('secret.two', { body: ['unrelated'] }, false, 'secret');
    index.remove('other.intro');
    index.set('other.intro', { body: MINE[1]?.[2] ?? [] }, false, 'other');
    const query = new Map([['cache', 1]]);
    const scoped = index.scope(onlyOther);
    expect(index.top(query, { limit: 10, inScope: scoped.inScope })).toEqual(
      indexOf(MINE).top(query, { limit: 10 }),
    );
    expect(index.partitionOf('secret.two')).toBe('secret');
    expect(index.partitionOf('secret.one')).toBeUndefined();
  });

  it('given a term common in the scope but rare in the corpus, when the common-terms split runs, then it splits as an index of the scope alone would', () => {
    // 1,000 in-scope documents, 300 holding "widget" (30 %: common in scope); 4,000 others
    // without it (6 % of the corpus: rare there).
    const mine: Doc[] = Array.from({ length: 1000 }, (_, i) => [
      `other.${i}`,
      'other',
      i < 300 ? ['widget', `topic${i % 7}`, 'page'] : [`topic${i % 7}`, 'page', 'text'],
    ]);
    const secret: Doc[] = Array.from({ length: 4000 }, (_, i) => [
      `secret.${i}`,
      'secret',
      [`topic${i % 7}`, 'secret'],
    ]);
    const query = new Map([
      ['widget', 1],
      ['topic3', 1],
    ]);
    const shared = indexOf([...secret, ...mine]);
    const scope = shared.scope(onlyOther);
    const expected = lexicalTop(indexOf(mine), 0.2, query, 50, undefined, false);
    expect(lexicalTop(shared, 0.2, query, 50, undefined, false, [], scope)).toEqual(expected);
  });
});

describe('document graph within a scope', () => {
  const mine: GraphEdge[] = [
    { source: 'other.intro', target: 'other.cache', type: 'relatedTo' },
    { source: 'other.cache', target: 'other.glossary', type: 'partOf' },
  ];
  const theirs: GraphEdge[] = [
    { source: 'secret.one', target: 'other.cache', type: 'xref' },
    { source: 'secret.two', target: 'other.intro', type: 'xref' },
    { source: 'other.glossary', target: 'secret.one', type: 'xref' },
  ];
  const scope = { key: 'other', includes: (id: string) => id.startsWith('other.') };

  it('given edges to nodes outside the scope, when scoped, then degrees and PageRank are those of the scope’s own subgraph', () => {
    const alone = createDocumentGraph();
    alone.replaceOutbound([], mine);
    const shared = createDocumentGraph();
    shared.replaceOutbound([], [...theirs.slice(0, 1), ...mine, ...theirs.slice(1)]);
    const seeds = new Map([['other.intro', 1]]);
    expect(shared.proximity(seeds, scope.includes, scope)).toEqual(
      alone.proximity(seeds, scope.includes),
    );
    expect(shared.centrality(scope)).toEqual(alone.centrality());
    expect(shared.centrality()).not.toEqual(alone.centrality());
  });

  it('given a change to the graph, when scoped again, then the kept PageRank is recomputed', () => {
    const graph = createDocumentGraph();
    graph.replaceOutbound([], mine);
    const before = graph.centrality(scope);
    graph.replaceOutbound(['other.cache'], []);
    expect(graph.centrality(scope)).not.toEqual(before);
  });
});
