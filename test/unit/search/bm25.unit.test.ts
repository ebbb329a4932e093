import { describe, expect, it } from 'vitest';
import { createBm25Index } from '../../../services/search/bm25.js';

// BM25 with Lucene's IDF, computed by hand for a three-document corpus. MiniSearch measures a
// document's length in distinct terms (not tokens), so the lengths below count distinct terms.
const idf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));
const tfPart = (tf: number, length: number, average: number, k1: number, b: number): number =>
  (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / average));

describe('BM25 index', () => {
  const k1 = 1.2;
  const b = 0.75;
  const make = () => {
    const index = createBm25Index({ fields: { body: 1 }, params: { k1, b } });
    index.set('a', { body: ['event', 'store', 'event'] });
    index.set('b', { body: ['event', 'log'] });
    index.set('c', { body: ['search', 'index', 'rank', 'score', 'log'] });
    return index;
  };

  it('given a one-term query, when searched, then scores are textbook BM25', () => {
    const scores = make().search(new Map([['event', 1]]));
    const average = (2 + 2 + 5) / 3;
    expect(scores.get('a')).toBeCloseTo(idf(3, 2) * tfPart(2, 2, average, k1, b), 10);
    expect(scores.get('b')).toBeCloseTo(idf(3, 2) * tfPart(1, 2, average, k1, b), 10);
    expect(scores.has('c')).toBe(false);
  });

  it('given two query terms, when a document matches both, then its score is their plain sum (no coordination factor)', () => {
    const scores = make().search(
      new Map([
        ['event', 1],
        ['log', 1],
      ]),
    );
    const average = (2 + 2 + 5) / 3;
    const expected =
      idf(3, 2) * tfPart(1, 2, average, k1, b) + idf(3, 2) * tfPart(1, 2, average, k1, b);
    expect(scores.get('b')).toBeCloseTo(expected, 10);
  });

  it('given query term weights, when searched, then each term counts by its weight', () => {
    const index = make();
    const single = index.search(new Map([['log', 1]])).get('c') ?? 0;
    expect(index.search(new Map([['log', 2.5]])).get('c')).toBeCloseTo(2.5 * single, 10);
  });

  it('given a field of weight 2, when indexed, then its terms count twice in one BM25F field', () => {
    const index = createBm25Index({ fields: { title: 2, body: 1 }, params: { k1, b } });
    index.set('a', { title: ['store'], body: ['event'] });
    index.set('b', { title: [], body: ['store', 'log', 'x'] });
    const scores = index.search(new Map([['store', 1]]));
    // a: store ×2 + event (2 distinct terms); b: 3 distinct terms.
    const average = (2 + 3) / 2;
    expect(scores.get('a')).toBeCloseTo(idf(2, 2) * tfPart(2, 2, average, k1, b), 10);
    expect(scores.get('b')).toBeCloseTo(idf(2, 2) * tfPart(1, 3, average, k1, b), 10);
  });

  it('given a replaced and a removed document, when searched, then only current content matches', () => {
    const index = make();
    index.set('a', { body: ['search'] });
    index.remove('c');
    expect(index.size).toBe(2);
    expect([...index.search(new Map([['search', 1]])).keys()]).toEqual(['a']);
    expect(index.search(new Map([['store', 1]])).size).toBe(0);
  });

  it('given a filter, when searched, then rejected documents are not scored', () => {
    const scores = make().search(new Map([['event', 1]]), (id) => id !== 'a');
    expect([...scores.keys()]).toEqual(['b']);
  });

  it('given a fractional field weight, when created, then it is refused', () => {
    expect(() => createBm25Index({ fields: { title: 1.5 }, params: { k1, b } })).toThrow(
      /whole number/,
    );
  });
});
