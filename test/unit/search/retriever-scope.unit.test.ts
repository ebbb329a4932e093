import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../services/search/embedder.js';
import type { GraphEdge } from '../../../services/search/graph.js';
import {
  createHybridRetriever,
  type RetrievalDocument,
  type RetrievalHit,
} from '../../../services/search/retriever.js';

// A fixed embedder that learns nothing from the corpus (like a remote model): "cache" words
// point one way, "panel" words the other.
const fixedEmbedder: Embedder = {
  name: 'fixed',
  embed: (texts) =>
    Promise.resolve(
      texts.map((text) => {
        const lower = text.toLowerCase();
        const cache = (lower.match(/cache|evict|frobnicate/g) ?? []).length;
        const panel = (lower.match(/panel|widget|render/g) ?? []).length;
        return Float32Array.from([cache, panel, 0.01]);
      }),
    ),
};
// The same vectors, but "fitted" on the corpus: its basis would depend on every document.
const fittedEmbedder: Embedder = {
  ...fixedEmbedder,
  name: 'fitted',
  fit: (texts) => fixedEmbedder.embed(texts, 'document'),
};

const MINE: RetrievalDocument[] = [
  {
    id: 'other.cache',
    partition: 'other',
    fields: { title: 'Frobnicate the cache', body: 'evict old cache entries' },
  },
  {
    id: 'other.intro',
    partition: 'other',
    fields: { title: 'Widgets', body: 'a widget renders a panel; frobnicate it' },
  },
  { id: 'other.panel', partition: 'other', fields: { title: 'Panels', body: 'render a panel' } },
];
const SECRET: RetrievalDocument[] = [
  {
    id: 'secret.one',
    partition: 'secret',
    fields: { title: 'Secret frobnicate', body: 'frobnicate frobnicate the widget cache' },
  },
  { id: 'secret.two', partition: 'secret', fields: { title: 'Notes', body: 'frobnicate panels' } },
];
const MY_EDGES: GraphEdge[] = [{ source: 'other.intro', target: 'other.cache', type: 'partOf' }];
const SECRET_EDGES: GraphEdge[] = [
  { source: 'secret.one', target: 'other.cache', type: 'xref' },
  { source: 'secret.two', target: 'other.panel', type: 'xref' },
];

const onlyOther = (partition: string): boolean => partition === 'other';
const inOther = (id: string): boolean => id.startsWith('other.');

const hitsOf = async (
  embedder: Embedder,
  documents: readonly RetrievalDocument[],
  edges: readonly GraphEdge[],
  query: { text: string; partitions?: (partition: string) => boolean },
): Promise<RetrievalHit[]> => {
  const retriever = createHybridRetriever({ embedder });
  await retriever.rebuild(documents, edges);
  return retriever.search({ ...query, limit: 10, filter: inOther });
};

describe('hybrid retriever within partitions', () => {
  it('given an embedder that learns nothing from the corpus, when a restricted search runs, then every list is used and nothing depends on other partitions', async () => {
    const query = { text: 'frobnicate the widget cache', partitions: onlyOther };
    const alone = await hitsOf(fixedEmbedder, MINE, MY_EDGES, query);
    const shared = await hitsOf(
      fixedEmbedder,
      [...SECRET, ...MINE],
      [...SECRET_EDGES, ...MY_EDGES],
      query,
    );
    expect(shared).toEqual(alone);
    expect(alone.some((hit) => hit.ranks.vector !== null)).toBe(true);
    // Without the restriction the other partition's documents change the caller's scores.
    const unrestricted = { text: query.text };
    expect(
      await hitsOf(
        fixedEmbedder,
        [...SECRET, ...MINE],
        [...SECRET_EDGES, ...MY_EDGES],
        unrestricted,
      ),
    ).not.toEqual(await hitsOf(fixedEmbedder, MINE, MY_EDGES, unrestricted));
  });

  it('given an embedder fitted on the corpus, when a restricted search runs, then it goes without vectors; unrestricted it keeps them', async () => {
    const documents = [...SECRET, ...MINE];
    const text = 'frobnicate the widget cache';
    const restricted = await hitsOf(fittedEmbedder, documents, MY_EDGES, {
      text,
      partitions: onlyOther,
    });
    expect(restricted.length).toBeGreaterThan(0);
    expect(restricted.every((hit) => hit.ranks.vector === null && hit.scores.vector === 0)).toBe(
      true,
    );
    const unrestricted = await hitsOf(fittedEmbedder, documents, MY_EDGES, { text });
    expect(unrestricted.some((hit) => hit.ranks.vector !== null)).toBe(true);
  });

  it('given a restricted reader, when it asks for term weights, then they come from its partitions', async () => {
    const alone = createHybridRetriever({ embedder: fixedEmbedder });
    await alone.rebuild(MINE, []);
    const shared = createHybridRetriever({ embedder: fixedEmbedder });
    await shared.rebuild([...SECRET, ...MINE], []);
    const text = 'frobnicate panel';
    expect(shared.termWeights(text, onlyOther)).toEqual(alone.termWeights(text));
    expect(shared.termWeights(text)).not.toEqual(alone.termWeights(text));
  });
});
