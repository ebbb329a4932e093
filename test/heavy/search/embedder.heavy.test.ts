import { describe, expect, it } from 'vitest';
import { normalize } from '../../../services/search/embedder.js';
import { createLsaEmbedder } from '../../../services/search/lsa.js';
import { symmetricEigen } from '../../../services/search/lsa-model.js';

const corpus = [
  'event store append stream revision',
  'event store subscription position log',
  'append events to a stream with expected revision',
  'search index ranking bm25 score',
  'ranking fusion of search scores',
  'vector embedding of search queries',
  'learning path module unit skill',
  'module units teach a skill',
];

const cosine = (a: Float32Array, b: Float32Array): number => {
  const x = normalize(Float32Array.from(a));
  const y = normalize(Float32Array.from(b));
  return x.reduce((sum, value, i) => sum + value * (y[i] ?? 0), 0);
};

describe('LSA embedder', () => {
  it('given the same corpus, when fitted twice, then the embeddings are identical', async () => {
    const first = createLsaEmbedder({ dimensions: 4 });
    const second = createLsaEmbedder({ dimensions: 4 });
    await first.fit(corpus);
    await second.fit(corpus);
    const a = await first.embed(corpus, 'document');
    const b = await second.embed(corpus, 'document');
    expect(a.map((v) => [...v])).toEqual(b.map((v) => [...v]));
    expect(first.rank).toBe(4);
  });

  it('given a query sharing no word with a document, when embedded, then co-occurrence still relates them', async () => {
    const embedder = createLsaEmbedder({ dimensions: 3, minDocumentFrequency: 1 });
    await embedder.fit(corpus);
    // "subscription" co-occurs with "event store" only: the query lands near the event store docs.
    const [query, storeDoc, learningDoc] = await embedder.embed(
      ['subscription', corpus[2] ?? '', corpus[6] ?? ''],
      'query',
    );
    expect(cosine(query!, storeDoc!)).toBeGreaterThan(0.5);
    expect(cosine(query!, storeDoc!)).toBeGreaterThan(cosine(query!, learningDoc!) + 0.3);
  });

  it('given a fit in a worker thread and one on the event loop, when compared, then the vectors are identical and match a re-embedding', async () => {
    const inWorker = createLsaEmbedder({ dimensions: 4 });
    const here = createLsaEmbedder({ dimensions: 4, worker: false });
    const a = await inWorker.fit(corpus);
    const b = await here.fit(corpus);
    expect(a).toHaveLength(corpus.length);
    expect(a.map((v) => [...v])).toEqual(b.map((v) => [...v]));
    expect(a.some((v) => v.some((value) => value !== 0))).toBe(true);
    // What the fit returns is what embedding the same texts gives afterwards.
    const again = await inWorker.embed(corpus, 'document');
    expect(again.map((v) => [...v])).toEqual(a.map((v) => [...v]));
    // Queries use the model the worker sent back.
    const [query] = await inWorker.embed(['event store'], 'query');
    const [same] = await here.embed(['event store'], 'query');
    expect([...query!]).toEqual([...same!]);
    // Three worker starts from TypeScript sources: seconds each on a loaded machine.
  }, 30_000);

  it('given one embedder refitted on a growing corpus, when each fit runs in a worker of its own, then each equals the fit on the event loop', async () => {
    const inWorker = createLsaEmbedder({ dimensions: 4 });
    const here = createLsaEmbedder({ dimensions: 4, worker: false });
    // Three fits, two of them started together: they run one after the other, in order.
    const corpora = [corpus.slice(0, 5), corpus.slice(0, 7), corpus];
    const [first, second] = await Promise.all([
      inWorker.fit(corpora[0] ?? []),
      inWorker.fit(corpora[1] ?? []),
    ]);
    const third = await inWorker.fit(corpora[2] ?? []);
    for (const [fitted, texts] of [
      [first, corpora[0]],
      [second, corpora[1]],
      [third, corpora[2]],
    ] as const) {
      const expected = await here.fit(texts ?? []);
      expect(fitted.map((v) => [...v])).toEqual(expected.map((v) => [...v]));
    }
    // The model kept is the last fit's.
    const [query] = await inWorker.embed(['event store'], 'query');
    const [same] = await here.embed(['event store'], 'query');
    expect([...query!]).toEqual([...same!]);
  });

  it('given a corpus taking a while to fit, when fitted in a worker, then the event loop is not held for the fit', async () => {
    const big = Array.from(
      { length: 5000 },
      (_, i) =>
        `topic${i % 40} word${(i * 7) % 500} term${(i * 13) % 700} extra${(i * 31) % 900} ${corpus[i % 8]}`,
    );
    // The longest gap between ticks of a 5 ms timer: how long a search would have waited.
    const longestPause = async (fit: () => Promise<unknown>): Promise<number> => {
      let longest = 0;
      let last = performance.now();
      const timer = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 5);
      try {
        await fit();
        await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        clearInterval(timer);
      }
      return longest;
    };
    const started = performance.now();
    const here = await longestPause(() =>
      createLsaEmbedder({ dimensions: 128, worker: false }).fit(big),
    );
    const fitTime = performance.now() - started;
    const inWorker = await longestPause(() => createLsaEmbedder({ dimensions: 128 }).fit(big));
    // On the event loop the fit is one block; in the worker only the hand-over remains.
    expect(here).toBeGreaterThan(fitTime * 0.6);
    expect(inWorker).toBeLessThan(here / 2);
    // Two real fits of 5,000 texts: on a loaded two-core machine they outlast the 5 s default.
  }, 30_000);

  it('given the two weightings, when fitted, then they give different vectors', async () => {
    const entropy = await createLsaEmbedder({ dimensions: 4, worker: false }).fit(corpus);
    const tfidf = await createLsaEmbedder({
      dimensions: 4,
      worker: false,
      weighting: 'tfidf',
    }).fit(corpus);
    expect(entropy.map((v) => [...v])).not.toEqual(tfidf.map((v) => [...v]));
  });

  it.each([{ dimensions: 0 }, { weighting: 'bm25' as 'tfidf' }, { powerIterations: 1.5 }])(
    'given invalid options %o, when created, then they are refused',
    (options) => {
      expect(() => createLsaEmbedder(options)).toThrow(RangeError);
    },
  );

  it('given no fit, when embedding, then vectors are zero (no signal rather than noise)', async () => {
    const [vector] = await createLsaEmbedder({ dimensions: 8 }).embed(['anything'], 'query');
    expect([...vector!].every((value) => value === 0)).toBe(true);
  });

  it('given a symmetric matrix, when decomposed, then A v = λ v for every pair', () => {
    const n = 12;
    const matrix = new Float64Array(n * n);
    for (let i = 0; i < n; i += 1)
      for (let j = 0; j <= i; j += 1) {
        const value = Math.sin(i * 7 + j * 3) + (i === j ? 2 : 0);
        matrix[i * n + j] = value;
        matrix[j * n + i] = value;
      }
    const { values, vectors } = symmetricEigen(matrix, n);
    for (let c = 0; c < n; c += 1)
      for (let i = 0; i < n; i += 1) {
        let product = 0;
        for (let k = 0; k < n; k += 1) product += matrix[i * n + k]! * vectors[k * n + c]!;
        expect(product).toBeCloseTo(values[c]! * vectors[i * n + c]!, 9);
      }
  });
});
