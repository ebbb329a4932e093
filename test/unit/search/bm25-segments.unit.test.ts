import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBm25Index, type Bm25Index } from '../../../services/search/bm25.js';
import { PROPERTY_TIMEOUT_MS } from '../../support/property.js';

/**
 * The segmented index against a reference written the plainest way (maps, every document
 * scanned, windows found by comparing every pair of positions): after any sequence of sets,
 * replacements and removals, with segments committed and merged at any point, every search
 * scores every document as the reference does.
 */
const FIELDS = { title: 2, body: 1 } as const;
const K1 = 1.2;
const B = 0.75;
const PROXIMITY = { ordered: 0.1 / 0.85, unordered: 0.05 / 0.85, window: 8 };
const SPAN = 1 << 22;

type Fields = Record<keyof typeof FIELDS, string[]>;

const referenceIndex = () => {
  const documents = new Map<string, Fields>();
  const weighted = (doc: Fields): { counts: Map<string, number>; length: number } => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const [name, weight] of Object.entries(FIELDS)) {
      for (const term of doc[name as keyof Fields]) {
        counts.set(term, (counts.get(term) ?? 0) + weight);
        length += weight;
      }
    }
    return { counts, length };
  };
  const placesOf = (doc: Fields, term: string): number[] =>
    Object.keys(FIELDS).flatMap((name, field) =>
      doc[name as keyof Fields].flatMap((t, offset) => (t === term ? [field * SPAN + offset] : [])),
    );
  return {
    set: (id: string, doc: Fields) => documents.set(id, doc),
    remove: (id: string) => documents.delete(id),
    search: (
      query: Map<string, number>,
      scoreOnly: Map<string, number>,
      pairs: [string, string][],
    ): Map<string, number> => {
      const n = documents.size;
      const scores = new Map<string, number>();
      if (n === 0) return scores;
      const stats = new Map([...documents].map(([id, doc]) => [id, weighted(doc)]));
      const average = [...stats.values()].reduce((sum, s) => sum + s.length, 0) / n;
      const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const part = (tf: number, length: number) =>
        tf / (tf + K1 * (1 - B) + ((K1 * B) / average) * length);
      const add = (terms: Map<string, number>, select: boolean) => {
        for (const [term, weight] of terms) {
          const holders = [...stats].filter(([, s]) => s.counts.has(term));
          for (const [id, s] of holders) {
            if (!select && !scores.has(id)) continue;
            scores.set(
              id,
              (scores.get(id) ?? 0) +
                weight * idf(holders.length) * (K1 + 1) * part(s.counts.get(term)!, s.length),
            );
          }
        }
      };
      add(query, true);
      add(scoreOnly, false);
      for (const [first, second] of pairs) {
        if (first === second) continue;
        const found: [string, number, number][] = [];
        for (const [id, doc] of documents) {
          const xs = placesOf(doc, first);
          const ys = placesOf(doc, second);
          let ordered = 0;
          let unordered = 0;
          for (const p of xs) {
            const weight = Object.values(FIELDS)[Math.floor(p / SPAN)]!;
            if (ys.some((q) => q > p - PROXIMITY.window && q < p + PROXIMITY.window)) {
              unordered += weight;
              if (ys.includes(p + 1)) ordered += weight;
            }
          }
          if (unordered > 0) found.push([id, ordered, unordered]);
        }
        const orderedDf = found.filter(([, o]) => o > 0).length;
        for (const [id, ordered, unordered] of found) {
          if (!scores.has(id)) continue;
          const { length } = stats.get(id)!;
          const norm = K1 * (1 - B) + ((K1 * B) / average) * length;
          scores.set(
            id,
            scores.get(id)! +
              (ordered > 0
                ? (PROXIMITY.ordered * idf(orderedDf) * (K1 + 1) * ordered) / (ordered + norm)
                : 0) +
              (PROXIMITY.unordered * idf(found.length) * (K1 + 1) * unordered) / (unordered + norm),
          );
        }
      }
      return scores;
    },
  };
};

// A small vocabulary makes shared terms, windows and phrases likely; long bodies with a
// large one exercise documents of hundreds of distinct terms.
const term = fc.oneof(
  fc.constantFrom('event', 'store', 'log', 'search', 'index'),
  fc.integer({ min: 0, max: 600 }).map((i) => `w${i}`),
);
const fields = fc.record({
  title: fc.array(term, { maxLength: 4 }),
  body: fc.array(term, { maxLength: 400, size: 'large' }),
});
const id = fc.integer({ min: 0, max: 30 }).map((i) => `d${i}`);
const operation = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), id, fields }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('commit' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('search' as const),
      terms: fc.array(term, { minLength: 1, maxLength: 4 }),
      common: fc.option(term, { nil: undefined }),
    }),
  },
);

const compare = (
  index: Bm25Index,
  reference: ReturnType<typeof referenceIndex>,
  terms: string[],
  common?: string,
) => {
  const query = new Map(terms.map((t) => [t, 1]));
  const scoreOnly = new Map(common === undefined ? [] : [[common, 0.5]]);
  const pairs = terms.slice(1).map((t, i) => [terms[i]!, t] as [string, string]);
  const actual = index.search(query, undefined, scoreOnly, pairs);
  const expected = reference.search(query, scoreOnly, pairs);
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [doc, score] of expected) expect(actual.get(doc)).toBeCloseTo(score, 9);
};

describe('BM25 segments', () => {
  it(
    'given any sequence of sets, removals, commits and searches, then every search scores as the reference does',
    () => {
      fc.assert(
        fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
          const index = createBm25Index({
            fields: FIELDS,
            params: { k1: K1, b: B },
            proximity: PROXIMITY,
          });
          const reference = referenceIndex();
          for (const op of operations) {
            if (op.kind === 'set') {
              index.set(op.id, op.fields);
              reference.set(op.id, op.fields);
            } else if (op.kind === 'remove') {
              index.remove(op.id);
              reference.remove(op.id);
            } else if (op.kind === 'commit') index.commit();
            else compare(index, reference, op.terms, op.common);
          }
          compare(index, reference, ['event', 'store', 'log']);
        }),
        // Shrinking runs the slow reference thousands of times: report the first failure as found.
        { numRuns: 80, endOnFailure: true },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it('given a document of hundreds of distinct terms, when indexed, then every term finds it', () => {
    const index = createBm25Index({ fields: { body: 1 }, params: { k1: K1, b: B } });
    const body = Array.from({ length: 700 }, (_, i) => `t${i}`);
    index.set('wide', { body });
    index.set('other', { body: ['t0'] });
    for (const t of body) expect(index.search(new Map([[t, 1]])).has('wide')).toBe(true);
    expect(index.documentFrequency('t699')).toBe(1);
    expect(index.termCounts('wide')?.counts.get('t699')).toBe(1);
  });

  it('given many small commits, when searched, then the newer segments are merged into one', () => {
    const index = createBm25Index({ fields: { body: 1 }, params: { k1: K1, b: B } });
    for (let i = 0; i < 20; i += 1) {
      index.set(`d${i}`, { body: ['shared', `own${i}`] });
      index.commit();
    }
    const stats = index.stats();
    expect(stats.segments).toBeLessThanOrEqual(9);
    expect(stats.documents).toBe(20);
    expect(index.search(new Map([['shared', 1]])).size).toBe(20);
  });

  it('given most documents replaced, when committed, then removed postings are merged away and scores are kept', () => {
    const index = createBm25Index({ fields: { body: 1 }, params: { k1: K1, b: B } });
    const fresh = createBm25Index({ fields: { body: 1 }, params: { k1: K1, b: B } });
    for (let i = 0; i < 1000; i += 1) index.set(`d${i}`, { body: ['old', `x${i % 7}`] });
    index.commit();
    for (let i = 0; i < 1000; i += 1) {
      const body = ['new', `x${i % 5}`, 'new'];
      index.set(`d${i}`, { body });
      fresh.set(`d${i}`, { body });
    }
    index.commit();
    expect(index.stats()).toMatchObject({ documents: 1000, deadDocuments: 0, segments: 1 });
    expect(index.search(new Map([['old', 1]])).size).toBe(0);
    const query = new Map([
      ['new', 1],
      ['x3', 1],
    ]);
    const expected = fresh.search(query);
    const actual = index.search(query);
    expect(actual.size).toBe(expected.size);
    for (const [doc, score] of expected) expect(actual.get(doc)).toBeCloseTo(score, 12);
  });
});
