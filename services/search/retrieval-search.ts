import type { Analyzer } from './analyzer.js';
import type { Bm25Index } from './bm25.js';
import type { Embedder } from './embedder.js';
import { topK } from './fusion.js';
import type { DocumentGraph, GraphScope } from './graph.js';
import { fuseScores, toHits, vectorScores } from './retrieval-fusion.js';
import { expandQuery, lexicalTop } from './retrieval-lexical.js';
import type { RetrievalHit, RetrievalQuery, RetrievalSettings } from './retriever.js';
import type { VectorStore } from './vector-store.js';

/**
 * What a search reads of its retriever. The lexical index and the graph are read when used,
 * not once at the start: a rebuild may replace them while a search awaits its query vector.
 */
export interface SearchParts {
  readonly settings: RetrievalSettings;
  readonly analyze: Analyzer;
  readonly embedder: Embedder;
  readonly vectors: VectorStore;
  lexical(): Bm25Index;
  graph(): DocumentGraph;
  isSecondary(id: string): boolean;
}

/**
 * Which components a query uses: its own choice, else the settings'. A restricted query
 * (`partitions`) never uses vectors of an embedder fitted on the corpus: the model's basis
 * is learned from every document, in scope or not, so the vector list, the vector feedback
 * and the similarity smoothing would all depend on documents outside the scope.
 */
const componentsOf = (query: RetrievalQuery, settings: RetrievalSettings, embedder: Embedder) => {
  const fittedVectors = query.partitions !== undefined && embedder.fit !== undefined;
  return {
    bm25: query.components?.bm25 ?? true,
    feedback: query.components?.feedback ?? settings.feedback !== undefined,
    vector: !fittedVectors && (query.components?.vector ?? true),
    vectorFeedback: query.components?.vectorFeedback ?? settings.vectorFeedback !== undefined,
    smoothing: !fittedVectors,
    graph: query.components?.graph ?? true,
  };
};

/** The graph as a restricted query sees it: nodes of the admitted partitions only. */
const graphScope = (
  lexical: Bm25Index,
  partitions: ((partition: string) => boolean) | undefined,
): GraphScope | undefined => {
  if (!partitions) return undefined;
  const admitted = lexical.scope(partitions).partitions;
  const names = new Set(admitted);
  return {
    key: JSON.stringify(admitted),
    includes: (id) => {
      const partition = lexical.partitionOf(id);
      return partition !== undefined && names.has(partition);
    },
  };
};

/** A query's terms with their counts, and its adjacent pairs of distinct terms. */
const queryTerms = (
  sequence: readonly string[],
): { terms: Map<string, number>; pairs: [string, string][] } => {
  const terms = new Map<string, number>();
  for (const term of sequence) terms.set(term, (terms.get(term) ?? 0) + 1);
  const pairs: [string, string][] = [];
  for (let i = 1; i < sequence.length; i += 1) {
    const first = sequence[i - 1] as string;
    const second = sequence[i] as string;
    if (first !== second) pairs.push([first, second]);
  }
  return { terms, pairs };
};

/** One hybrid search: the lexical list, the vector list, their fusion and the graph rerank. */
export const searchHybrid = async (
  parts: SearchParts,
  query: RetrievalQuery,
): Promise<RetrievalHit[]> => {
  const { settings, embedder, vectors } = parts;
  const use = componentsOf(query, settings, embedder);
  const depth = Math.max(settings.depth, query.limit);
  const all = query.all === true;
  const accept = (id: string): boolean =>
    parts.lexical().has(id) &&
    (all || !parts.isSecondary(id)) &&
    (query.filter ? query.filter(id) : true);
  const { terms, pairs } = queryTerms(parts.analyze(query.text));

  // The lexical list: its top `depth` documents (raw BM25 scores of the others are not
  // kept, as the vector list keeps only its top).
  let lexicalList: [string, number][] = [];
  if (use.bm25 && terms.size > 0) {
    const filter = query.filter ? accept : undefined;
    const cutoff = settings.commonTermCutoff;
    const lexical = parts.lexical();
    const scope = query.partitions ? lexical.scope(query.partitions) : undefined;
    lexicalList = lexicalTop(lexical, cutoff, terms, depth, filter, all, pairs, scope);
    if (use.feedback) {
      const expanded = expandQuery(lexical, settings, terms, lexicalList);
      lexicalList = lexicalTop(lexical, cutoff, expanded, depth, filter, all, [], scope);
    }
  }
  const semanticTop =
    use.vector && vectors.size > 0 && terms.size > 0
      ? topK(
          await vectorScores(embedder, vectors, settings, {
            text: query.text,
            accept: query.filter,
            depth,
            feedback: use.bm25 && use.vectorFeedback ? lexicalList : [],
            all,
          }),
          depth,
        )
      : [];
  const scores = fuseScores(
    settings,
    {
      lexical: new Map(lexicalList),
      semantic: new Map(semanticTop),
      useBm25: use.bm25,
      useVector: use.vector,
      useSmoothing: use.smoothing,
      useGraph: use.graph,
    },
    vectors,
    { graph: parts.graph(), scope: graphScope(parts.lexical(), query.partitions) },
    accept,
  );
  return toHits(scores, lexicalList, semanticTop, query.limit, depth);
};
