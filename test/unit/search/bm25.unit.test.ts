import { describe, expect, it } from 'vitest';
import { createBm25Index } from '../../../services/search/bm25.js';

// BM25 with Lucene's IDF, computed by hand for a three-document corpus. A document's length is
// its number of tokens, each counted by its field's weight (BM25F).
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
    const average = (3 + 2 + 5) / 3;
    expect(scores.get('a')).toBeCloseTo(idf(3, 2) * tfPart(2, 3, average, k1, b), 10);
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
    const average = (3 + 2 + 5) / 3;
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
    // a: store ×2 + event (length 3); b: 3 tokens.
    const average = (3 + 3) / 2;
    expect(scores.get('a')).toBeCloseTo(idf(2, 2) * tfPart(2, 3, average, k1, b), 10);
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

  describe('term dependence (sequential dependence model)', () => {
    const proximity = { ordered: 0.1 / 0.85, unordered: 0.05 / 0.85, window: 8 };
    const fillers = (count: number, tag: string): string[] =>
      Array.from({ length: count }, (_, i) => `${tag}${i}`);
    const make = () => {
      const index = createBm25Index({ fields: { body: 1 }, params: { k1, b }, proximity });
      // a: the phrase; c: both terms, reversed and 3 apart; d: both terms 12 apart.
      index.set('a', { body: ['heart', 'attack', ...fillers(12, 'a')] });
      index.set('c', { body: ['attack', 'x', 'y', 'heart', ...fillers(10, 'c')] });
      index.set('d', { body: ['heart', ...fillers(11, 'd'), 'attack', 'z'] });
      return index;
    };
    const query = new Map([
      ['heart', 1],
      ['attack', 1],
    ]);
    const pairs = [['heart', 'attack']] as const;

    it('given adjacent query terms, when a document has the phrase, then the ordered and unordered features add by their weights', () => {
      const index = make();
      const unigrams = index.search(query);
      const scores = index.search(query, undefined, undefined, pairs);
      // Every document is 14 tokens long, so the length factor is 1.
      const feature = (df: number): number => idf(3, df) * tfPart(1, 14, 14, k1, b);
      // Ordered: a only (df 1); unordered window of 8: a and c (df 2).
      expect(scores.get('a')! - unigrams.get('a')!).toBeCloseTo(
        proximity.ordered * feature(1) + proximity.unordered * feature(2),
        10,
      );
      expect(scores.get('c')! - unigrams.get('c')!).toBeCloseTo(
        proximity.unordered * feature(2),
        10,
      );
      expect(scores.get('d')).toBeCloseTo(unigrams.get('d')!, 10);
      expect(scores.get('a')).toBeGreaterThan(scores.get('c')!);
      expect(scores.get('c')).toBeGreaterThan(scores.get('d')!);
    });

    it('given an index without proximity, when pairs are passed, then scores are unigram BM25', () => {
      const index = createBm25Index({ fields: { body: 1 }, params: { k1, b } });
      index.set('a', { body: ['heart', 'attack'] });
      index.set('b', { body: ['heart', 'x', 'attack'] });
      const scores = index.search(query, undefined, undefined, pairs);
      expect(scores.get('a')).toBeCloseTo(index.search(query).get('a')!, 10);
    });

    it('given a phrase split across two fields, when searched, then no window spans the fields', () => {
      const index = createBm25Index({
        fields: { title: 2, body: 1 },
        params: { k1, b },
        proximity,
      });
      index.set('split', { title: ['heart'], body: ['attack'] });
      index.set('other', { title: ['x'], body: ['y'] });
      const plain = index.search(query).get('split');
      expect(index.search(query, undefined, undefined, pairs).get('split')).toBeCloseTo(plain!, 10);
    });

    it('given a removed document, when searched, then its windows no longer count', () => {
      const index = make();
      index.remove('a');
      const scores = index.search(query, undefined, undefined, pairs);
      // c is now the only unordered match (df 1) in a two-document corpus.
      const unigrams = index.search(query);
      expect(scores.get('c')! - unigrams.get('c')!).toBeCloseTo(
        proximity.unordered * idf(2, 1) * tfPart(1, 14, 14, k1, b),
        10,
      );
    });

    it.each([
      { ordered: -0.1, unordered: 0.05, window: 8 },
      { ordered: 0.1, unordered: Number.NaN, window: 8 },
      { ordered: 0.1, unordered: 0.05, window: 1 },
      { ordered: 0.1, unordered: 0.05, window: 2.5 },
    ])('given invalid proximity %o, when created, then it is refused', (invalid) => {
      expect(() =>
        createBm25Index({ fields: { body: 1 }, params: { k1, b }, proximity: invalid }),
      ).toThrow(RangeError);
    });
  });

  it('given k1 or b out of range, when created, then it is refused', () => {
    expect(() => createBm25Index({ fields: { body: 1 }, params: { k1: -1, b } })).toThrow(
      RangeError,
    );
    expect(() => createBm25Index({ fields: { body: 1 }, params: { k1, b: 1.5 } })).toThrow(
      RangeError,
    );
  });
});
