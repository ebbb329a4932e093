/**
 * The vector side of hybrid retrieval. An embedder maps texts to vectors; documents and
 * queries may be embedded differently (some models want an instruction on the query side).
 * Corpus-derived embedders learn from the indexed documents (`fit`); remote ones ignore it.
 */
export type EmbeddingKind = 'query' | 'document';

export interface Embedder {
  /** Shown in explanations and logs (`lsa-256`, `http:text-embedding-3-small`). */
  readonly name: string;
  /**
   * Learns from the whole corpus; called at (re)build time with every indexed document's
   * text, and returns their embeddings under the new model (embeddings made before a fit are
   * stale after it). Asynchronous so that an embedder can do the work off the event loop.
   * `learnFrom`, when given, marks the documents to learn from (the others are only embedded):
   * older versions of a page would teach the model the same text many times over.
   */
  fit?(documents: readonly string[], learnFrom?: readonly boolean[]): Promise<Float32Array[]>;
  /** One vector per text, in order. Vectors need not be normalised. */
  embed(texts: readonly string[], kind: EmbeddingKind): Promise<Float32Array[]>;
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export const normalize = (vector: Float32Array): Float32Array => {
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] ?? 0) * scale;
  return vector;
};
