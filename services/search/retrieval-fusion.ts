import { normalize, type Embedder } from './embedder.js';
import { convexCombination, normalizeScores, topK } from './fusion.js';
import type { DocumentGraph, GraphScope } from './graph.js';
import type { RetrievalHit, RetrievalSettings } from './retriever.js';
import type { VectorStore } from './vector-store.js';

/** The best `depth` documents by cosine to the query, optionally moved towards feedback. */
export const vectorScores = async (
  embedder: Embedder,
  vectors: VectorStore,
  settings: RetrievalSettings,
  ask: {
    readonly text: string;
    readonly accept: ((id: string) => boolean) | undefined;
    readonly depth: number;
    readonly feedback: readonly [string, number][];
    readonly all: boolean;
  },
): Promise<Map<string, number>> => {
  const { text, accept, depth, feedback, all } = ask;
  const [raw] = await embedder.embed([text], 'query');
  if (!raw) return new Map();
  const query = normalize(Float32Array.from(raw));
  const rocchio = settings.vectorFeedback;
  if (rocchio && rocchio.weight > 0 && feedback.length > 0) {
    const best = feedback[0]?.[1] ?? 0;
    const centroid = new Float32Array(query.length);
    for (const [id, score] of feedback.slice(0, rocchio.documents)) {
      if (best > 0) vectors.addTo(centroid, id, score / best);
    }
    normalize(centroid);
    for (let i = 0; i < query.length; i += 1) {
      query[i] = (query[i] ?? 0) + rocchio.weight * (centroid[i] ?? 0);
    }
    normalize(query);
  }
  return vectors.scan(query, accept, depth, all);
};

/** The text scores (BM25 and vector, combined) and the fused ones after the graph rerank. */
export interface FusedScores {
  readonly text: Map<string, number>;
  readonly fused: Map<string, number>;
  /** What the graph gave each document (proximity, centrality); empty without edges. */
  readonly graph: Map<string, number>;
}

/**
 * The lexical and vector lists combined, scaled by their maximum afterwards (so the graph
 * weights below mean the same whatever the normalisation), then reranked: similarity
 * smoothing among the best, and the graph's proximity to them and centrality.
 */
export const fuseScores = (
  settings: RetrievalSettings,
  lists: {
    readonly lexical: ReadonlyMap<string, number>;
    readonly semantic: ReadonlyMap<string, number>;
    readonly useBm25: boolean;
    readonly useVector: boolean;
    /** Similarity smoothing among the best (needs vectors the query may use). */
    readonly useSmoothing: boolean;
    readonly useGraph: boolean;
  },
  vectors: VectorStore,
  { graph, scope }: { readonly graph: DocumentGraph; readonly scope: GraphScope | undefined },
  accept: (id: string) => boolean,
): FusedScores => {
  const text = normalizeScores(
    convexCombination([
      {
        scores: normalizeScores(lists.lexical, settings.normalization.bm25),
        weight: lists.useBm25 ? settings.weights.bm25 : 0,
      },
      {
        scores: normalizeScores(lists.semantic, settings.normalization.vector),
        weight: lists.useVector ? settings.weights.vector : 0,
      },
    ]),
    'max',
  );
  const fused = new Map(text);
  let graphScores = new Map<string, number>();
  if (lists.useGraph && text.size > 0) {
    const textTop = topK(text, settings.graphSeeds);
    if (lists.useSmoothing && settings.smoothing > 0 && vectors.size > 0) {
      smooth(settings, vectors, textTop, fused);
    }
    if (graph.edgeCount > 0) {
      graphScores = graphRerank(settings, { graph, scope }, textTop, text, accept);
      for (const [id, score] of graphScores) {
        fused.set(id, (fused.get(id) ?? 0) + settings.weights.graph * score);
      }
    }
  }
  return { text, fused, graph: graphScores };
};

/** Each of the best documents moved towards the scores of those similar to it. */
const smooth = (
  settings: RetrievalSettings,
  vectors: VectorStore,
  textTop: readonly [string, number][],
  fused: Map<string, number>,
): void => {
  for (const [id, score] of textTop) {
    let weighted = 0;
    let total = 0;
    for (const [other, otherScore] of textTop) {
      if (other === id) continue;
      const similarity = vectors.similarity(id, other);
      if (similarity <= 0) continue;
      weighted += similarity * otherScore;
      total += similarity;
    }
    if (total > 0) {
      fused.set(id, (1 - settings.smoothing) * score + (settings.smoothing * weighted) / total);
    }
  }
};

/** Proximity to the best documents over the edges, and centrality of what the text found. */
const graphRerank = (
  settings: RetrievalSettings,
  { graph, scope }: { readonly graph: DocumentGraph; readonly scope: GraphScope | undefined },
  textTop: readonly [string, number][],
  text: ReadonlyMap<string, number>,
  accept: (id: string) => boolean,
): Map<string, number> => {
  const best = textTop[0]?.[1] ?? 1;
  const seeds = new Map(textTop.map(([id, score]) => [id, score / best]));
  const proximity = normalizeScores(graph.proximity(seeds, accept, scope), 'max');
  const centrality = graph.centrality(scope);
  // Centrality only reorders documents the text found; proximity may add new ones.
  const graphScores = new Map(proximity);
  for (const id of text.keys()) {
    const prior = centrality.get(id);
    if (prior === undefined) continue;
    graphScores.set(
      id,
      (1 - settings.centralityShare) * (graphScores.get(id) ?? 0) +
        settings.centralityShare * prior,
    );
  }
  return graphScores;
};

const rankOf = (list: readonly [string, number][]): Map<string, number> =>
  new Map(list.map(([id], index) => [id, index + 1]));

/** The `limit` best fused documents with each component's score and rank. */
export const toHits = (
  scores: FusedScores,
  lexicalList: readonly [string, number][],
  semanticTop: readonly [string, number][],
  limit: number,
  depth: number,
): RetrievalHit[] => {
  const { text, fused, graph: graphScores } = scores;
  const top = topK(fused, limit);
  const lexical = new Map(lexicalList);
  const lexicalRanks = rankOf(lexicalList);
  const semanticRanks = rankOf(semanticTop);
  const semantic = new Map(semanticTop);
  const graphRanks =
    graphScores.size > 0 ? rankOf(topK(graphScores, depth)) : new Map<string, number>();
  return top.map(([id, score], index) => ({
    id,
    scores: {
      bm25: lexical.get(id) ?? 0,
      vector: semantic.get(id) ?? 0,
      graph: score - (text.get(id) ?? 0),
      fused: score,
    },
    ranks: {
      bm25: lexicalRanks.get(id) ?? null,
      vector: semanticRanks.get(id) ?? null,
      graph: graphRanks.get(id) ?? null,
      fused: index + 1,
    },
  }));
};
