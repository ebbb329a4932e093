import { createAnalyzer, type Analyzer } from './analyzer.js';
import {
  createBm25Index,
  type Bm25Index,
  type Bm25Stats,
  type Bm25Params,
  type ProximityParams,
} from './bm25.js';
import { normalize, type Embedder } from './embedder.js';
import type { Normalization } from './fusion.js';
import { createDocumentGraph, type DocumentGraph, type GraphEdge } from './graph.js';
import { indexDocument, passageCountsOf, type Passages } from './retrieval-lexical.js';
import { searchHybrid, type SearchParts } from './retrieval-search.js';
import { createVectorStore } from './vector-store.js';

/**
 * Hybrid retrieval over generic documents: BM25 with pseudo-relevance feedback (RM3), a
 * vector list from an `Embedder`, and a graph rerank over typed edges, fused by a convex
 * combination of normalised scores. The catalog-specific parts (fields, filters, read model)
 * live in the search service; this file knows only ids, weighted text fields and edges.
 */
export interface RetrievalDocument {
  readonly id: string;
  /** Field name → text; fields not in the settings are ignored. */
  readonly fields: Readonly<Record<string, string>>;
  /**
   * Searched only by queries that ask for every document (`all`): an older version of a page
   * whose newest one stands for it. Default false.
   */
  readonly secondary?: boolean;
  /**
   * Where the passages of one field start (character offsets, ascending; each at a word
   * boundary, such as a heading's line): `passageCounts` then tells which passages hold a
   * query's terms, from the index's positions, without reading the text again.
   */
  readonly passages?: { readonly field: string; readonly offsets: readonly number[] };
  /**
   * The group a read scope admits or refuses whole (e.g. label and product; default ''):
   * corpus statistics are kept per partition, so a search restricted to some partitions
   * scores with theirs alone (`RetrievalQuery.partitions`).
   */
  readonly partition?: string;
}

/** Per passage of a document: how often each asked term occurs, and its length in terms. */
export interface PassageCounts {
  readonly counts: readonly ReadonlyMap<string, number>[];
  readonly lengths: readonly number[];
}

export interface RetrievalSettings {
  /** Field name → BM25F weight (whole numbers: term-frequency multipliers). */
  readonly fields: Readonly<Record<string, number>>;
  readonly bm25: Bm25Params;
  /**
   * Term dependence in the lexical score (sequential dependence model over adjacent query
   * terms, BM25 features; see bm25.ts); undefined turns it off.
   */
  readonly proximity: ProximityParams | undefined;
  /** RM3 feedback; undefined turns it off. */
  readonly feedback:
    | {
        /** Top documents of the first pass taken as relevant. */
        readonly documents: number;
        /** Expansion terms added. */
        readonly terms: number;
        /** Weight of the original query against the expansion (λ). */
        readonly originalWeight: number;
      }
    | undefined;
  /**
   * Vector-side pseudo-relevance feedback (Rocchio on the embedding): the query vector moves
   * toward the BM25-score-weighted centroid of the top BM25 hits' vectors before the vector
   * scan. Only the vector list changes, so the lexical list keeps the query's exact terms;
   * undefined turns it off.
   */
  readonly vectorFeedback:
    | {
        /** Top BM25 hits whose vectors form the centroid. */
        readonly documents: number;
        /** Weight of the (unit) centroid added to the (unit) query vector. */
        readonly weight: number;
      }
    | undefined;
  /** How each list's scores are put on a common scale before fusion. */
  readonly normalization: { readonly bm25: Normalization; readonly vector: Normalization };
  /** Fusion weights of the normalised lists. */
  readonly weights: { readonly bm25: number; readonly vector: number; readonly graph: number };
  /** Depth of each component list before fusion. */
  readonly depth: number;
  /** Top fused text hits that spread graph proximity and are smoothed by similarity. */
  readonly graphSeeds: number;
  /**
   * Score regularisation among the top hits (Diaz, "Regularizing ad hoc retrieval scores",
   * CIKM 2005): each top hit's text score moves this far toward the similarity-weighted mean
   * of the other top hits' scores (the cluster hypothesis over the implicit similarity graph).
   */
  readonly smoothing: number;
  /** Share of the graph score that is centrality (the rest is proximity). */
  readonly centralityShare: number;
  /** Query terms in more than this share of documents are pruned when rarer ones exist. */
  readonly commonTermCutoff: number;
  /** Characters of a document's text given to the embedder. */
  readonly embedChars: number;
}

/**
 * The defaults, the same for every corpus (measured on scifact, cranfield and cisi with
 * `npm run eval:search`; see services/search/README.md):
 * - BM25F with the classic k1 = 1.2, b = 0.75 and title/summary/headings counted twice;
 *   it beat k1 = 0.9, b = 0.4 on all three collections.
 * - Term dependence with SDM's published weights (0.85 / 0.1 / 0.05, window 8; Metzler &
 *   Croft 2005), not tuned here: +0.009 BM25 nDCG@10 on scifact, +0.009 on cranfield, −0.004 on
 *   cisi; hybrid +0.005 / +0.006 / −0.003.
 * - No RM3: pseudo-relevance feedback lost 0.06 nDCG@10 on scifact and 0.02 on cisi.
 * - 0.7 BM25 + 0.3 vector: the corpus-derived embedding is a weaker ranker than BM25 on its
 *   own and helps as a complement; equal-weight RRF lost to BM25 alone on scifact.
 * - Both lists z-score normalised (+0.006 on scifact over max / min–max at the same weights).
 * - Vector-side feedback from the top 3 BM25 hits, weight 1: gained on all three collections
 *   (+0.001 scifact, +0.010 cranfield, +0.012 cisi, graph off).
 * - Graph rerank: smoothing 0.3 among the top 20, edge proximity weight 0.1.
 */
export const DEFAULT_RETRIEVAL_SETTINGS: RetrievalSettings = {
  fields: { title: 2, summary: 2, headings: 2, body: 1 },
  bm25: { k1: 1.2, b: 0.75 },
  proximity: { ordered: 0.1 / 0.85, unordered: 0.05 / 0.85, window: 8 },
  feedback: undefined,
  vectorFeedback: { documents: 3, weight: 1 },
  normalization: { bm25: 'z-score', vector: 'z-score' },
  weights: { bm25: 0.7, vector: 0.3, graph: 0.1 },
  depth: 200,
  graphSeeds: 20,
  smoothing: 0.3,
  centralityShare: 0.2,
  commonTermCutoff: 0.2,
  embedChars: 8000,
};

export { RM3_DEFAULTS } from './retrieval-lexical.js';

export interface SearchComponents {
  readonly bm25?: boolean;
  /** RM3 feedback: default as the settings say; true turns it on (RM3_DEFAULTS if unset). */
  readonly feedback?: boolean;
  readonly vector?: boolean;
  /** Vector-side feedback from the BM25 list: default as the settings say. */
  readonly vectorFeedback?: boolean;
  readonly graph?: boolean;
}

export interface RetrievalQuery {
  readonly text: string;
  readonly limit: number;
  /** Only documents passing it are returned (and count in feedback). */
  readonly filter?: (id: string) => boolean;
  /** Components to use (all by default); for measurement. */
  readonly components?: SearchComponents;
  /** Secondary documents too (default false: they are neither scored nor returned). */
  readonly all?: boolean;
  /**
   * A restricted reader's partitions: nothing the search returns (scores, order, ranks)
   * depends on documents outside them. Term statistics and the common-terms split count only
   * their documents, the graph only their nodes and edges, and a vector list from an
   * embedder fitted on the whole corpus is left out (its basis is learned from every
   * document). Undefined: the whole corpus, every signal.
   */
  readonly partitions?: (partition: string) => boolean;
}

export interface ComponentScores {
  readonly bm25: number;
  readonly vector: number;
  readonly graph: number;
  readonly fused: number;
}

export interface ComponentRanks {
  /** 1-based rank in each component list; null when absent from it. */
  readonly bm25: number | null;
  readonly vector: number | null;
  readonly graph: number | null;
  readonly fused: number;
}

export interface RetrievalHit {
  readonly id: string;
  /**
   * Raw component scores (BM25, cosine) and the fused score; `graph` is what the graph rerank
   * changed in the fused score (edge proximity and centrality add, similarity smoothing moves
   * either way).
   */
  readonly scores: ComponentScores;
  readonly ranks: ComponentRanks;
}

export interface HybridRetriever {
  readonly size: number;
  readonly embedderName: string;
  /** Replaces the whole corpus: refits the embedder and embeds every document. */
  rebuild(documents: readonly RetrievalDocument[], edges: readonly GraphEdge[]): Promise<void>;
  /** Adds or replaces documents (embedded with the current model) and their outbound edges. */
  upsert(documents: readonly RetrievalDocument[], edges: readonly GraphEdge[]): Promise<void>;
  remove(ids: readonly string[]): void;
  /** Marks indexed documents secondary or primary (see `RetrievalDocument.secondary`). */
  setSecondary(ids: readonly string[], secondary: boolean): void;
  /** How the lexical index is laid out (for logs and metrics). */
  lexicalStats(): Bm25Stats;
  /** The terms' occurrences per passage of a document indexed with passages. */
  passageCounts(id: string, terms: readonly string[]): PassageCounts | undefined;
  /** Documents changed since the last rebuild, as a share of the corpus (refit hint). */
  drift(): number;
  /**
   * The index terms of a text with their inverse document frequency in the corpus (terms the
   * corpus lacks get the rarest weight): what a query's words weigh when a caller scores
   * passages of a hit itself (the best section of a page).
   */
  termWeights(text: string, partitions?: (partition: string) => boolean): Map<string, number>;
  /** The analyzer the index uses, so passages are cut into the same terms. */
  analyze(text: string): string[];
  search(query: RetrievalQuery): Promise<RetrievalHit[]>;
}

export interface RetrieverOptions {
  readonly embedder: Embedder;
  readonly settings?: RetrievalSettings;
  readonly edgeWeights?: Readonly<Record<string, number>>;
  readonly analyze?: Analyzer;
}

/** Documents indexed between two yields to the event loop during a rebuild (~20 ms). */
const BUILD_SLICE = 128;
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const createHybridRetriever = (options: RetrieverOptions): HybridRetriever => {
  const settings = options.settings ?? DEFAULT_RETRIEVAL_SETTINGS;
  const analyze = options.analyze ?? createAnalyzer();
  const { embedder } = options;
  const createLexical = (): Bm25Index =>
    createBm25Index({
      fields: settings.fields,
      params: settings.bm25,
      proximity: settings.proximity,
    });
  // Replaced whole by a rebuild (built aside while searches use the current one).
  let lexicalIndex = createLexical();
  const vectors = createVectorStore();
  let graph: DocumentGraph = createDocumentGraph({ edgeWeights: options.edgeWeights ?? {} });
  let changedSinceBuild = 0;
  // Documents indexed with passages: where each passage starts among the field's terms (and,
  // last, the field's length).
  let passages = new Map<string, Passages>();
  // Secondary documents (also flagged in the lexical index and the vector store, for their
  // scans; here for the graph's candidates).
  let secondaryIds = new Set<string>();
  const noteSecondary = (documents: readonly RetrievalDocument[]): void => {
    for (const document of documents) {
      if (document.secondary === true) secondaryIds.add(document.id);
      else secondaryIds.delete(document.id);
    }
  };

  const fieldNames = Object.keys(settings.fields);
  const embedText = (document: RetrievalDocument): string =>
    fieldNames
      .map((name) => document.fields[name] ?? '')
      .filter((text) => text.length > 0)
      .join('\n')
      .slice(0, settings.embedChars);

  const storeVectors = (
    documents: readonly RetrievalDocument[],
    embedded: readonly (Float32Array | undefined)[],
  ): void => {
    documents.forEach((document, i) => {
      const vector = embedded[i];
      if (vector) {
        vectors.set(document.id, normalize(Float32Array.from(vector)), document.secondary === true);
      } else vectors.remove(document.id);
    });
  };

  const parts: SearchParts = {
    settings,
    analyze,
    embedder,
    vectors,
    lexical: () => lexicalIndex,
    graph: () => graph,
    isSecondary: (id) => secondaryIds.has(id),
  };

  return {
    get size() {
      return lexicalIndex.size;
    },
    get embedderName() {
      return embedder.name;
    },
    rebuild: async (documents, edges) => {
      // The fit and embedding start first (off the event loop where the embedder can) and the
      // lexical index is built meanwhile; until both finish, searches use the current index,
      // which is then replaced in one step.
      const texts = documents.map(embedText);
      // The model learns from the documents searched by default, not every older version.
      const embedding = embedder.fit
        ? embedder.fit(
            texts,
            documents.map((document) => document.secondary !== true),
          )
        : embedder.embed(texts, 'document');
      // Awaited below; until then a failure must not count as an unhandled rejection.
      embedding.catch(() => undefined);
      // In slices that let searches through.
      const next = createLexical();
      const nextPassages = new Map<string, Passages>();
      for (let i = 0; i < documents.length; i += 1) {
        indexDocument(analyze, fieldNames, next, nextPassages, documents[i] as RetrievalDocument);
        if (i % BUILD_SLICE === BUILD_SLICE - 1) await yieldToEventLoop();
      }
      next.commit();
      const embedded = await embedding;
      lexicalIndex = next;
      passages = nextPassages;
      vectors.clear();
      storeVectors(documents, embedded);
      graph = createDocumentGraph({ edgeWeights: options.edgeWeights ?? {} });
      graph.replaceOutbound([], edges);
      secondaryIds = new Set();
      noteSecondary(documents);
      changedSinceBuild = 0;
    },
    upsert: async (documents, edges) => {
      const embedded = await embedder.embed(documents.map(embedText), 'document');
      for (const document of documents) {
        indexDocument(analyze, fieldNames, lexicalIndex, passages, document);
      }
      graph.replaceOutbound(
        documents.map((document) => document.id),
        edges,
      );
      storeVectors(documents, embedded);
      noteSecondary(documents);
      changedSinceBuild += documents.length;
    },
    setSecondary: (ids, secondary) => {
      for (const id of ids) {
        if (secondary) secondaryIds.add(id);
        else secondaryIds.delete(id);
        lexicalIndex.setSecondary(id, secondary);
        vectors.setSecondary(id, secondary);
      }
    },
    remove: (ids) => {
      for (const id of ids) {
        if (!lexicalIndex.has(id)) continue;
        lexicalIndex.remove(id);
        vectors.remove(id);
        graph.removeNode(id);
        secondaryIds.delete(id);
        passages.delete(id);
        changedSinceBuild += 1;
      }
    },
    lexicalStats: () => lexicalIndex.stats(),
    passageCounts: (id, terms) => {
      const known = passages.get(id);
      return known ? passageCountsOf(lexicalIndex, known, id, terms) : undefined;
    },
    drift: () => (lexicalIndex.size === 0 ? 0 : changedSinceBuild / lexicalIndex.size),
    termWeights: (text, partitions) => {
      const corpus = partitions ? lexicalIndex.scope(partitions) : lexicalIndex;
      const n = corpus.size;
      const weights = new Map<string, number>();
      for (const term of analyze(text)) {
        const df = corpus.documentFrequency(term);
        weights.set(term, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
      }
      return weights;
    },
    analyze: (text) => analyze(text),
    search: (query) => searchHybrid(parts, query),
  };
};
