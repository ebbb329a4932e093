import { describe, expect, it, vi } from 'vitest';
import { normalize, type Embedder } from '../../../services/search/embedder.js';
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

describe('term dependence', () => {
  it('given both query words in two documents, when one has them as a phrase, then it ranks first in BM25', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(
      [
        { id: 'apart', fields: { body: 'store a b c d e f g h i j event' } },
        { id: 'phrase', fields: { body: 'a b c d e f g h i j event store' } },
        { id: 'neither', fields: { body: 'ranking' } },
      ],
      [],
    );
    const query = { text: 'event store', limit: 2, components: { vector: false, graph: false } };
    const hits = await retriever.search(query);
    expect(hits.map((hit) => hit.id)).toEqual(['phrase', 'apart']);
    const off = createHybridRetriever({
      embedder: topicEmbedder,
      settings: { ...DEFAULT_RETRIEVAL_SETTINGS, proximity: undefined },
    });
    await off.rebuild(
      [
        { id: 'apart', fields: { body: 'store a b c d e f g h i j event' } },
        { id: 'phrase', fields: { body: 'a b c d e f g h i j event store' } },
      ],
      [],
    );
    // Without it the two documents are the same bag of words.
    const [first, second] = await off.search(query);
    expect(first!.scores.bm25).toBeCloseTo(second!.scores.bm25, 10);
  });
});

describe('rebuild', () => {
  it('given a rebuild whose fit is still running, when searched, then the previous index answers until it completes', async () => {
    let gate: Promise<void> = Promise.resolve();
    const gated: Embedder = {
      name: 'gated',
      fit: async (texts) => {
        await gate;
        return topicEmbedder.embed(texts, 'document');
      },
      embed: (texts, kind) => topicEmbedder.embed(texts, kind),
    };
    const retriever = createHybridRetriever({ embedder: gated });
    await retriever.rebuild(documents, []);
    let release: () => void = () => undefined;
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const replaced = [{ id: 'index', fields: { title: 'Search index', body: 'rank results' } }];
    const rebuilding = retriever.rebuild(replaced, []);
    // The lexical side of the new index is built meanwhile; the old one is still searched.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const during = await retriever.search({ text: 'event store', limit: 3 });
    expect(during[0]?.id).toBe('store');
    expect(retriever.size).toBe(3);
    release();
    await rebuilding;
    const after = await retriever.search({ text: 'search index', limit: 3 });
    expect(after.map((hit) => hit.id)).toEqual(['index']);
    expect(retriever.size).toBe(1);
  });
});

describe('failed rebuild', () => {
  it('given a fit that fails while the lexical side is built, when rebuilt, then the rebuild rejects and the previous index stays', async () => {
    let fail = false;
    const flaky: Embedder = {
      name: 'flaky',
      fit: async (texts) => {
        if (fail) throw new Error('fit failed');
        return topicEmbedder.embed(texts, 'document');
      },
      embed: (texts, kind) => topicEmbedder.embed(texts, kind),
    };
    const retriever = createHybridRetriever({ embedder: flaky });
    await retriever.rebuild(documents, []);
    fail = true;
    // Enough documents that the lexical build yields to the event loop several times.
    const many = Array.from({ length: 600 }, (_, i) => ({ id: `m${i}`, fields: { body: 'x' } }));
    await expect(retriever.rebuild(many, [])).rejects.toThrow('fit failed');
    expect(retriever.size).toBe(3);
    const hits = await retriever.search({ text: 'event store', limit: 3 });
    expect(hits[0]?.id).toBe('store');
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

describe('vector-side feedback', () => {
  it('given a query with no topical word, when vector feedback is on, then the vector list leans toward the BM25 top hits', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(documents, []);
    // "event" carries no topic of its own: its vector is the neutral [0, 0, 0.01].
    const plain = await retriever.search({
      text: 'event',
      limit: 3,
      components: { vectorFeedback: false, graph: false },
    });
    const fed = await retriever.search({ text: 'event', limit: 3, components: { graph: false } });
    const cosine = (hits: typeof plain, id: string): number =>
      hits.find((hit) => hit.id === id)?.scores.vector ?? 0;
    // Without feedback both topics are about orthogonal to the query; with it, BM25's top hit
    // (the event store) pulls the query toward storage.
    expect(cosine(plain, 'persist')).toBeLessThan(0.01);
    expect(cosine(plain, 'rank')).toBeLessThan(0.01);
    expect(cosine(fed, 'persist')).toBeGreaterThan(cosine(fed, 'rank') + 0.5);
    expect(fed[0]?.id).toBe('store');
  });
});

describe('common-term split on many candidates', () => {
  it.each([
    // Fewer candidates than postings of the common term: candidates are looked up.
    ['mid common', (i: number) => i % 6 === 0, () => true],
    // More candidates (two selecting terms) than postings of the common term: postings walked.
    ['mid wide common', (i: number) => i % 6 === 0 || i % 5 === 1, (i: number) => i % 4 === 0],
  ] as const)(
    'given hundreds of candidates and a common term (%s), when searched, then the results equal exact full scoring',
    async (text, selects, common) => {
      const corpus = Array.from({ length: 1200 }, (_, i) => ({
        id: `d${i}`,
        fields: {
          body: [
            selects(i) ? (i % 6 === 0 ? 'mid '.repeat(1 + (i % 4)) : 'wide') : '',
            common(i) ? 'common '.repeat(1 + (i % 5)) : '',
            `filler${i % 37} other${i % 11}`,
          ].join(' '),
        },
      }));
      const pruned = createHybridRetriever({ embedder: topicEmbedder });
      const full = createHybridRetriever({
        embedder: topicEmbedder,
        settings: { ...DEFAULT_RETRIEVAL_SETTINGS, commonTermCutoff: 1 },
      });
      await pruned.rebuild(corpus, []);
      await full.rebuild(corpus, []);
      const query = { text, limit: 50, components: { vector: false, graph: false } } as const;
      const a = await pruned.search(query);
      const b = await full.search(query);
      expect(a).toHaveLength(50);
      expect(a.map((hit) => hit.id)).toEqual(b.map((hit) => hit.id));
      a.forEach((hit, i) => {
        expect(hit.scores.bm25).toBeCloseTo(b[i]!.scores.bm25, 9);
      });
    },
  );
});

describe('vector store and top-k selection', () => {
  it('given WebAssembly is unavailable, when scanned, then the JavaScript loop gives the same cosines', () => {
    const fill = (store: ReturnType<typeof createVectorStore>): void => {
      for (let i = 0; i < 40; i += 1) {
        store.set(
          `d${i}`,
          normalize(Float32Array.from({ length: 21 }, (_, j) => Math.sin(i * 7 + j * 3))),
        );
      }
    };
    const query = normalize(Float32Array.from({ length: 21 }, (_, j) => Math.cos(j)));
    const simd = createVectorStore();
    fill(simd);
    vi.stubGlobal('WebAssembly', undefined);
    let plain: ReturnType<typeof createVectorStore>;
    try {
      plain = createVectorStore();
      fill(plain);
    } finally {
      vi.unstubAllGlobals();
    }
    const a = simd.scan(query, undefined, 10);
    const b = plain.scan(query, undefined, 10);
    expect(a.size).toBeGreaterThan(0);
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [id, score] of a) expect(score).toBeCloseTo(b.get(id) ?? 0, 5);
  });

  it('given a selective filter, when scanned, then the closest accepted documents return in order', () => {
    const store = createVectorStore();
    // 300 documents of 13 dimensions (not a multiple of the SIMD step); cosine falls with i.
    for (let i = 0; i < 300; i += 1) {
      const vector = new Float32Array(13);
      vector[0] = 1;
      vector[1 + (i % 12)] = i / 100;
      store.set(`d${i}`, normalize(vector));
    }
    const query = new Float32Array(13);
    query[0] = 1;
    // Only every 50th passes: the candidate pool must widen beyond limit × 4 to find them.
    const top = store.scan(query, (id) => Number(id.slice(1)) % 50 === 0, 3);
    expect([...top.keys()]).toEqual(['d0', 'd50', 'd100']);
    expect(top.get('d0')).toBeCloseTo(1, 6);
    expect(top.get('d50')).toBeCloseTo(1 / Math.sqrt(1 + 0.25), 6);
  });

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

  it('given secondary documents, when scanned, then only a scan of every document finds them, in one order with the primary ones', () => {
    const store = createVectorStore();
    store.set('new', Float32Array.from([0.6, 0.8]));
    store.set('old', Float32Array.from([1, 0]), true);
    store.set('older', Float32Array.from([0.8, 0.6]), true);
    const query = Float32Array.from([1, 0]);
    expect([...store.scan(query, undefined, 10).keys()]).toEqual(['new']);
    expect([...store.scan(query, undefined, 10, true).keys()]).toEqual(['old', 'older', 'new']);
    expect([...store.scan(query, undefined, 2, true).keys()]).toEqual(['old', 'older']);
    // Marked primary, a document is scanned by default; its vector and similarities move along.
    store.setSecondary('old', false);
    store.setSecondary('new', true);
    expect([...store.scan(query, undefined, 10).keys()]).toEqual(['old']);
    expect(store.size).toBe(3);
    expect(store.similarity('old', 'new')).toBeCloseTo(0.6, 6);
    const target = new Float32Array(2);
    store.addTo(target, 'older', 2);
    expect([...target].map((x) => Number(x.toFixed(6)))).toEqual([1.6, 1.2]);
    // Set again as primary, a secondary document leaves its partition (no stale copy).
    store.set('older', Float32Array.from([0, 1]));
    expect([...store.scan(query, undefined, 10, true).keys()]).toEqual(['old', 'new']);
    store.remove('old');
    expect(store.scan(query, undefined, 10, true).has('old')).toBe(false);
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

describe('passages', () => {
  const body =
    'Intro about stores.\n## Events\nAppend events, events again.\n## Replay\nReplay events.';
  const offsets = [0, body.indexOf('## Events'), body.indexOf('## Replay')];
  const doc = (id: string, secondary = false) => ({
    id,
    fields: { title: 'Guide', body },
    passages: { field: 'body', offsets },
    secondary,
  });

  it('given a document indexed with passages, when counted, then each passage holds the occurrences its text analyses to, and its length', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild([doc('a')], []);
    const counts = retriever.passageCounts('a', ['event', 'replai', 'store', 'absent']);
    const passages = [
      body.slice(0, offsets[1]),
      body.slice(offsets[1], offsets[2]),
      body.slice(offsets[2]),
    ];
    expect(counts?.lengths).toEqual(passages.map((text) => retriever.analyze(text).length));
    expect(counts?.counts.map((count) => Object.fromEntries(count))).toEqual(
      passages.map((text) => {
        const found: Record<string, number> = {};
        for (const term of retriever.analyze(text)) {
          if (['event', 'replai', 'store'].includes(term)) found[term] = (found[term] ?? 0) + 1;
        }
        return found;
      }),
    );
  });

  it('given a document replaced without passages, then it has none; removed, neither', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild([doc('a'), doc('b')], []);
    await retriever.upsert([{ id: 'a', fields: { title: 'Guide', body } }], []);
    expect(retriever.passageCounts('a', ['event'])).toBeUndefined();
    retriever.remove(['b']);
    expect(retriever.passageCounts('b', ['event'])).toBeUndefined();
  });
});

describe('secondary documents', () => {
  it('given an older version marked secondary, when searched, then only a search asking for all finds it; marked primary again, every search does', async () => {
    const retriever = createHybridRetriever({ embedder: topicEmbedder });
    await retriever.rebuild(
      [
        { id: 'new', fields: { title: 'Replay', body: 'replay projections' } },
        {
          id: 'old',
          fields: { title: 'Replay', body: 'replay projections flag' },
          secondary: true,
        },
      ],
      [],
    );
    const ids = async (all: boolean) =>
      (await retriever.search({ text: 'replay flag', limit: 5, all })).map((hit) => hit.id);
    expect(await ids(false)).toEqual(['new']);
    expect((await ids(true)).sort()).toEqual(['new', 'old']);
    retriever.setSecondary(['old'], false);
    expect((await ids(false)).sort()).toEqual(['new', 'old']);
  });
});
