import { segmentBuffers } from './bm25-segment.js';
import { DocumentAnalyzer } from './bm25-analyze.js';
import { DocumentSegments } from './bm25-documents.js';
import { fieldOffsets, MAX_WINDOW } from './bm25-positions.js';
import { ScoreAccumulator } from './bm25-scoring.js';
import { bestPassing } from './bm25-top.js';

/**
 * BM25F over a small inverted index of its own (term → document → weighted frequency). Field
 * weights are applied as term-frequency weights before saturation: a field of weight w
 * contributes its terms w times to one combined field, which is BM25F with a shared length
 * normalisation (Robertson, Zaragoza & Taylor, "Simple BM25 extension to multiple weighted
 * fields", CIKM 2004). Summing a separate BM25 per field instead counts a term's IDF once per
 * field it occurs in and over-rewards title matches (measured: 0.626 against 0.684 nDCG@10 on
 * scifact). Lucene's IDF; a document's length is its weighted token count, as in the BM25F
 * paper (the distinct-term count MiniSearch used lost 0.001–0.010 BM25F nDCG@10 on each of
 * scifact, cranfield and cisi). Postings keep token positions for the term-dependence features.
 */
export interface Bm25Params {
  /** Term-frequency saturation. */
  readonly k1: number;
  /** Length normalisation (0: none, 1: full). */
  readonly b: number;
}

/**
 * Term dependence (the sequential dependence model, Metzler & Croft, SIGIR 2005, with BM25 as
 * the feature function as in Huston & Croft, CIKM 2014): each pair of adjacent query terms is
 * also scored as a pseudo-term, once as an ordered phrase (the two terms next to each other,
 * in order) and once as an unordered window (both within `window` positions), each with its own
 * document frequency, the same saturation and length normalisation. The weights are relative to
 * the unigram score (SDM's 0.85 / 0.1 / 0.05 → 1, 0.1/0.85, 0.05/0.85).
 */
export interface ProximityParams {
  readonly ordered: number;
  readonly unordered: number;
  /** Width of the unordered window in positions (SDM's #uw8: 8). */
  readonly window: number;
}

export interface Bm25Options {
  /** Field name → weight (a whole number ≥ 0); documents give each field's analyzed terms. */
  readonly fields: Readonly<Record<string, number>>;
  readonly params: Bm25Params;
  /** Term-dependence features of adjacent query terms; undefined: unigrams only. */
  readonly proximity?: ProximityParams | undefined;
}

export interface Bm25Index {
  /** Documents indexed. */
  readonly size: number;
  has(id: string): boolean;
  /**
   * Adds or replaces a document; each field holds its analyzed terms. Documents set since the
   * last search are laid out as one new segment by the next search (or `commit`).
   */
  set(
    id: string,
    fields: Readonly<Record<string, readonly string[]>>,
    secondary?: boolean,
    partition?: string,
  ): void;
  /** The partition a document counts in ('' by default; see `scope`). */
  partitionOf(id: string): string | undefined;
  /**
   * The index as a search restricted to the partitions `accepts` admits sees it: documents
   * and document frequencies of those partitions only (pass its `inScope` to `top`).
   */
  scope(accepts: (partition: string) => boolean): Bm25Scope;
  /**
   * Marks a document secondary (searched only when a search asks for every document: an
   * older version of a page) or not.
   */
  setSecondary(id: string, secondary: boolean): void;
  remove(id: string): void;
  /** Lays out the documents set since the last search now, so no search pays for it. */
  commit(): void;
  /** Documents holding the term. */
  documentFrequency(term: string): number;
  /** A document's weighted term frequencies and its length (for query feedback). */
  termCounts(id: string): { counts: Map<string, number>; length: number } | undefined;
  /** How the index is laid out (segments, postings, removed documents not yet merged away). */
  stats(): Bm25Stats;
  /** Where a term occurs in one field of a document: token offsets, ascending. */
  offsets(id: string, term: string, field: string): number[];
  /**
   * Scores every document matching at least one query term. `query` maps each term to its
   * weight (repeated terms, feedback weights). `scoreOnly` terms add to the documents the query
   * terms found but select none (very common terms). `pairs` (adjacent query terms) add their
   * term-dependence features to the documents already found (when the index has `proximity`).
   * Returns id → score.
   */
  search(
    query: ReadonlyMap<string, number>,
    filter?: (id: string) => boolean,
    scoreOnly?: ReadonlyMap<string, number>,
    pairs?: readonly (readonly [string, string])[],
  ): Map<string, number>;
  /**
   * The same scores, but only the `limit` best documents that pass `filter`, best first (ties
   * broken by id): the filter is asked about the best candidates only.
   */
  top(query: ReadonlyMap<string, number>, options: TopOptions): [string, number][];
}

/** The statistics of the partitions a read scope admits. */
export interface Bm25Scope {
  /** The admitted partitions' names, sorted. */
  readonly partitions: readonly string[];
  readonly size: number;
  documentFrequency(term: string): number;
  /** Per partition number, 1 when admitted. */
  readonly inScope: Uint8Array;
}

export interface TopOptions {
  readonly limit: number;
  readonly filter?: ((id: string) => boolean) | undefined;
  readonly scoreOnly?: ReadonlyMap<string, number> | undefined;
  readonly pairs?: readonly (readonly [string, string])[] | undefined;
  /** Secondary documents too (default: primary ones only). */
  readonly all?: boolean | undefined;
  /**
   * Only documents of these partitions (a `Bm25Scope`'s mask) are scored, with their own
   * statistics; undefined: the whole index.
   */
  readonly inScope?: Uint8Array | undefined;
}

export interface Bm25Stats {
  readonly documents: number;
  readonly terms: number;
  readonly segments: number;
  readonly postings: number;
  /** Removed or replaced documents whose postings are still in a segment. */
  readonly deadDocuments: number;
  /** Bytes of the segments' typed arrays. */
  readonly bytes: number;
  /** Partitions with statistics of their own, and the bytes of their frequency counters. */
  readonly partitions: number;
  readonly partitionBytes: number;
}

/** Refuses weights, parameters or a proximity window the scoring cannot use. */
const checkOptions = (options: Bm25Options): void => {
  for (const [name, weight] of Object.entries(options.fields)) {
    if (!Number.isInteger(weight) || weight < 0) {
      throw new RangeError(
        `BM25 field weight of "${name}" must be a whole number ≥ 0, got ${weight}`,
      );
    }
  }
  const { k1, b } = options.params;
  if (!(Number.isFinite(k1) && k1 >= 0 && Number.isFinite(b) && b >= 0 && b <= 1)) {
    throw new RangeError(`BM25 needs k1 ≥ 0 and 0 ≤ b ≤ 1, got k1 ${k1}, b ${b}`);
  }
  const { proximity } = options;
  if (
    proximity !== undefined &&
    !(
      Number.isFinite(proximity.ordered) &&
      proximity.ordered >= 0 &&
      Number.isFinite(proximity.unordered) &&
      proximity.unordered >= 0 &&
      Number.isInteger(proximity.window) &&
      proximity.window >= 2 &&
      proximity.window <= MAX_WINDOW
    )
  ) {
    throw new RangeError(
      `BM25 proximity needs weights ≥ 0 and a whole window from 2 to ${MAX_WINDOW}, got ${JSON.stringify(proximity)}`,
    );
  }
};

/**
 * The index: a term dictionary with the analysis of a document (`bm25-analyze.ts`), the
 * documents in segments (`bm25-documents.ts`), scoring into an accumulator
 * (`bm25-scoring.ts`) and the top-k of what it scored (`bm25-top.ts`).
 */
export const createBm25Index = (options: Bm25Options): Bm25Index => {
  checkOptions(options);
  const fields = Object.entries(options.fields);
  const analyzer = new DocumentAnalyzer(fields);
  const { termNumbers, termNames } = analyzer;
  const store = new DocumentSegments(() => termNames.length);
  const scorer = new ScoreAccumulator(
    store,
    termNumbers,
    options.params,
    options.proximity,
    fields.map(([, weight]) => weight),
  );

  return {
    get size() {
      return store.liveCount();
    },
    has: (id) => store.documents.has(id),
    set: (id, documentFields, secondary = false, partition = '') => {
      store.remove(id);
      store.add(id, analyzer.analyze(documentFields), secondary, partition);
    },
    partitionOf: (id) => {
      const number = store.documents.get(id);
      if (number === undefined) return undefined;
      return store.partitionStatistics.names[store.partitions[number] as number];
    },
    scope: (accepts) => {
      const inScope = store.partitionStatistics.mask(accepts);
      const stats = store.partitionStatistics.scoped(inScope);
      return {
        partitions: store.partitionStatistics.names.filter((_, p) => inScope[p] === 1).sort(),
        size: stats.documents,
        documentFrequency: (term) => {
          const number = termNumbers.get(term);
          return number === undefined ? 0 : stats.documentFrequency(number);
        },
        inScope,
      };
    },
    remove: (id) => {
      store.remove(id);
    },
    setSecondary: (id, secondary) => {
      store.setSecondary(id, secondary);
    },
    commit: () => {
      store.commit();
    },
    documentFrequency: (term) => {
      const number = termNumbers.get(term);
      return number === undefined ? 0 : (store.documentFrequencies[number] ?? 0);
    },
    termCounts: (id) => {
      store.commit();
      const number = store.documents.get(id);
      if (number === undefined) return undefined;
      const counts = new Map<string, number>();
      for (const term of store.termsOf(number)) {
        const posting = store.postingOf(term, number);
        if (posting) counts.set(termNames[term] as string, posting[0].freqs[posting[1]] as number);
      }
      return { counts, length: store.lengths[number] as number };
    },
    offsets: (id, text, fieldName) => {
      store.commit();
      const number = store.documents.get(id);
      const term = termNumbers.get(text);
      const field = fields.findIndex(([name]) => name === fieldName);
      if (number === undefined || term === undefined || field < 0) return [];
      const posting = store.postingOf(term, number);
      return posting ? fieldOffsets(posting[0], posting[1], field) : [];
    },
    stats: () => {
      store.commit();
      let postings = 0;
      let bytes = 0;
      for (const segment of store.segments) {
        postings += segment.docs.length;
        bytes += segmentBuffers(segment).reduce((sum, buffer) => sum + buffer.byteLength, 0);
      }
      return {
        documents: store.liveCount(),
        terms: termNames.length,
        segments: store.segments.length,
        postings,
        deadDocuments: store.nextNumber - store.liveCount(),
        bytes,
        partitions: store.partitionStatistics.names.length,
        partitionBytes: store.partitionStatistics.bytes(),
      };
    },
    search: (query, filter, scoreOnly, pairs) => {
      const count = scorer.accumulate({ query, scoreOnly, pairs, all: true });
      const { accumulator, touched } = scorer;
      const { names } = store;
      const scores = new Map<string, number>();
      for (let i = 0; i < count; i += 1) {
        const number = touched[i] as number;
        const score = accumulator[number] as number;
        accumulator[number] = 0;
        const id = names[number] as string;
        // The filter runs once per scored document, after scoring.
        if (filter === undefined || filter(id)) scores.set(id, score);
      }
      return scores;
    },
    top: (query, { limit, filter, scoreOnly, pairs, all = false, inScope }) => {
      const count = scorer.accumulate({ query, scoreOnly, pairs, all, inScope });
      const { accumulator, touched } = scorer;
      try {
        return bestPassing(accumulator, touched, store.names, count, limit, filter);
      } finally {
        for (let i = 0; i < count; i += 1) accumulator[touched[i] as number] = 0;
      }
    },
  };
};
