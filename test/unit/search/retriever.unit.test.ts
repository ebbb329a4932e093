import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../services/search/embedder.js';
import { topK } from '../../../services/search/fusion.js';
import {
  createHybridRetriever,
  DEFAULT_RETRIEVAL_SETTINGS,
} from '../../../services/search/retriever.js';
import { createVectorStore } from '../../../services/search/vector-store.js';

// A fixed embedder: "storage" words point one way, "search" words the other.
const topicEmbedder: Embedder = {
  name: 'topics',
  embed: (texts) =>
    Promise.resolve(
      texts.map((text) => {
        const lower = text.toLowerCase();
        const storage = (lower.match(/store|stream|append|persist|disk/g) ?? []).length;
        const search = (lower.match(/search|rank|index|retriev/g) ?? []).length;
        return Float32Array.from([storage, search, 0.01]);
      }),
    ),
};

const documents = [
  { id: 'store', fields: { title: 'Event store', body: 'append to a stream' } },
  { id: 'persist', fields: { title: 'Persistence', body: 'data lands on disk' } },
  { id: 'rank', fields: { title: 'Ranking', body: 'search results are ranked' } },
];

describe('hybrid retriever', () => {
  it('given a query, when searched, then each hit explains its component scores and ranks', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(documents, []);
    const hits = await retriever.search({ text: 'event store', limit: 3 });
    expect(hits[0]).toMatchObject({ id: 'store', ranks: { bm25: 1, fused: 1 } });
    expect(hits[0]!.ranks.vector).not.toBeNull();
    expect(hits[0]!.scores.bm25).toBeGreaterThan(0);
    expect(hits[0]!.scores.vector).toBeCloseTo(1, 3);
    // No shared word, same topic: the vector list finds it, BM25 does not.
    const persist = hits.find((hit) => hit.id === 'persist');
    expect(persist).toMatchObject({ ranks: { bm25: null } });
    expect(persist!.scores.vector).toBeGreaterThan(0.9);
  });

  it('given components switched off, when searched, then only the chosen list ranks', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(documents, []);
    const lexical = await retriever.search({
      text: 'event store',
      limit: 3,
      components: { vector: false, graph: false },
    });
    expect(lexical.map((hit) => hit.id)).toEqual(['store']);
    expect(lexical[0]!.scores.vector).toBe(0);
  });

  it('given a filter and a removal, when searched, then neither filtered nor removed documents return', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(documents, []);
    const filtered = await retriever.search({
      text: 'store disk',
      limit: 3,
      filter: (id) => id !== 'store',
    });
    expect(filtered.map((hit) => hit.id)).not.toContain('store');
    retriever.remove(['persist']);
    const after = await retriever.search({ text: 'store disk', limit: 3 });
    expect(after.map((hit) => hit.id)).not.toContain('persist');
    expect(retriever.size).toBe(2);
    expect(retriever.drift()).toBeCloseTo(0.5, 10);
  });

  it('given an edge from a hit, when the graph is on, then the linked document gains a graph score', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(documents, [{ source: 'store', target: 'rank', type: 'relatedTo' }]);
    const withGraph = await retriever.search({ text: 'event store', limit: 3 });
    const rank = withGraph.find((hit) => hit.id === 'rank');
    expect(rank?.scores.graph).toBeGreaterThan(0);
    expect(rank?.ranks.graph).not.toBeNull();
  });
});

describe('common query terms', () => {
  it('given a term in most documents and a rare one, when searched, then only the rare term selects BM25 candidates', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    // Pruning starts at 1,000 documents: "common" is in all, "rare" in one.
    const corpus = Array.from({ length: 1000 }, (_, i) => ({
      id: `d${i}`,
      fields: { body: i === 7 ? 'common rare' : `common filler${i}` },
    }));
    await retriever.rebuild(corpus, []);
    const both = await retriever.search({
      text: 'common rare',
      limit: 5,
      components: { vector: false, graph: false },
    });
    expect(both.map((hit) => hit.id)).toEqual(['d7']);
    // The common term still counts on the candidates, exactly as full BM25 scores it.
    const full = createHybridRetriever({
      embedder: topicEmbedder,
      settings: { ...DEFAULT_RETRIEVAL_SETTINGS, commonTermCutoff: 1 },
    });
    await full.rebuild(corpus, []);
    const reference = await full.search({
      text: 'common rare',
      limit: 1,
      components: { vector: false, graph: false },
    });
    expect(reference[0]?.id).toBe('d7');
    expect(both[0]!.scores.bm25).toBeCloseTo(reference[0]!.scores.bm25, 6);
    // Alone, a common term still finds documents.
    const alone = await retriever.search({
      text: 'common',
      limit: 5,
      components: { vector: false, graph: false },
    });
    expect(alone).toHaveLength(5);
  });
});

describe('vector store and top-k selection', () => {
  it('given vectors set, replaced and removed, when scanned, then cosines follow the current content', () => {
    const store = createVectorStore();
    store.set('a', Float32Array.from([1, 0]));
    store.set('b', Float32Array.from([0, 1]));
    store.set('a', Float32Array.from([0.6, 0.8]));
    store.remove('b');
    store.set('c', Float32Array.from([1, 0]));
    const scores = store.scan(Float32Array.from([1, 0]), () => true, 10);
    expect([...store.scan(Float32Array.from([1, 0]), () => true, 1).keys()]).toEqual(['c']);
    expect(scores.get('a')).toBeCloseTo(0.6, 6);
    expect(scores.get('c')).toBeCloseTo(1, 6);
    expect(scores.has('b')).toBe(false);
    expect(store.similarity('a', 'c')).toBeCloseTo(0.6, 6);
  });

  it('given a long list, when the top is selected, then it equals a full sort', () => {
    const scores = new Map(
      Array.from({ length: 500 }, (_, i) => [`d${i}`, (i * 7919) % 101] as const),
    );
    const expected = [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 20);
    expect(topK(scores, 20)).toEqual(expected);
  });
});
