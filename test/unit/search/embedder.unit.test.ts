import { describe, expect, it } from 'vitest';
import { normalize } from '../../../services/search/embedder.js';
import { createLsaEmbedder, symmetricEigen } from '../../../services/search/lsa.js';

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
    first.fit(corpus);
    second.fit(corpus);
    const a = await first.embed(corpus, 'document');
    const b = await second.embed(corpus, 'document');
    expect(a.map((v) => [...v])).toEqual(b.map((v) => [...v]));
    expect(first.rank).toBe(4);
  });

  it('given a query sharing no word with a document, when embedded, then co-occurrence still relates them', async () => {
    const embedder = createLsaEmbedder({ dimensions: 3, minDocumentFrequency: 1 });
    embedder.fit(corpus);
    // "subscription" co-occurs with "event store" only: the query lands near the event store docs.
    const [query, storeDoc, learningDoc] = await embedder.embed(
      ['subscription', corpus[2] ?? '', corpus[6] ?? ''],
      'query',
    );
    expect(cosine(query!, storeDoc!)).toBeGreaterThan(0.5);
    expect(cosine(query!, storeDoc!)).toBeGreaterThan(cosine(query!, learningDoc!) + 0.3);
  });

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
