import { findPosting, termRange, type Segment } from './bm25-segment.js';
import { windows } from './bm25-positions.js';
import { PRIMARY, SECONDARY, type DocumentSegments } from './bm25-documents.js';
import type { Bm25Params, ProximityParams } from './bm25.js';
import type { CorpusStatistics } from './bm25-partitions.js';

/** What one search scores with: the query's terms, score-only terms and adjacent pairs. */
export interface ScoringQuery {
  readonly query: ReadonlyMap<string, number>;
  readonly scoreOnly: ReadonlyMap<string, number> | undefined;
  readonly pairs: readonly (readonly [string, string])[] | undefined;
  /** Secondary documents too. */
  readonly all: boolean;
  /**
   * Per partition number, 1 when in the caller's scope: documents outside are neither scored
   * nor counted in the statistics. Undefined: the whole corpus.
   */
  readonly inScope?: Uint8Array | undefined;
}

/** The BM25 factors of one search, fixed by the corpus as it stands. */
interface Norms {
  readonly n: number;
  readonly stats: CorpusStatistics;
  readonly k1: number;
  /** k1 × (1 − b). */
  readonly base: number;
  /** k1 × b / average length. */
  readonly lengthFactor: number;
}

const idfOf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/**
 * Scores documents into a per-number accumulator (0: not touched yet), listing the numbers
 * touched in `touched`; the reader of the scores zeroes what it read. The arrays are scratch
 * kept across searches, so a search allocates nothing per hit.
 */
export class ScoreAccumulator {
  accumulator = new Float64Array(0);
  touched = new Int32Array(0);
  // Scratch for the term-dependence features: per pair, the documents with a window.
  #matchDocument = new Int32Array(0);
  #matchOrdered = new Float64Array(0);
  #matchUnordered = new Float64Array(0);
  readonly #found = new Float64Array(2);

  constructor(
    private readonly store: DocumentSegments,
    private readonly termNumbers: ReadonlyMap<string, number>,
    private readonly params: Bm25Params,
    private readonly proximity: ProximityParams | undefined,
    private readonly fieldWeights: readonly number[],
  ) {}

  /**
   * Scores every document the query terms select into `accumulator` (their numbers in
   * `touched`) and returns how many; the caller reads them out and zeroes the accumulator.
   */
  accumulate({ query, scoreOnly, pairs, all, inScope }: ScoringQuery): number {
    const { store } = this;
    store.commit();
    const stats = store.statistics(inScope);
    const n = stats.documents;
    if (query.size === 0 || n === 0) return 0;
    this.#reserve(store.nextNumber);
    const { k1, b } = this.params;
    const average = stats.totalLength / n;
    const norms: Norms = {
      n,
      stats,
      k1,
      lengthFactor: average > 0 ? (k1 * b) / average : 0,
      base: k1 * (1 - b),
    };
    // States above this are skipped: dead always, secondary unless every document is asked for.
    const visible = all ? SECONDARY : PRIMARY;
    const count = this.#selectingTerms(query, norms, visible);
    this.#scoreOnlyTerms(scoreOnly, norms, count);
    if (this.proximity && pairs && count > 0) this.#pairs(this.proximity, pairs, norms, visible);
    return count;
  }

  #reserve(numbers: number): void {
    if (this.accumulator.length >= numbers) return;
    const size = Math.max(numbers * 2, 256);
    this.accumulator = new Float64Array(size);
    this.touched = new Int32Array(size);
    if (this.proximity) {
      this.#matchDocument = new Int32Array(size);
      this.#matchOrdered = new Float64Array(size);
      this.#matchUnordered = new Float64Array(size);
    }
  }

  /** The query terms: every document holding one is touched and scored. */
  #selectingTerms(
    query: ReadonlyMap<string, number>,
    { n, stats, k1, base, lengthFactor }: Norms,
    visible: number,
  ): number {
    const { accumulator, touched } = this;
    const { segments, states, lengths, partitions } = this.store;
    const { inScope } = stats;
    let count = 0;
    for (const [text, weight] of query) {
      const term = this.termNumbers.get(text);
      // A positive weight keeps every contribution positive: 0 means "not touched yet".
      if (term === undefined || !(weight > 0)) continue;
      const df = stats.documentFrequency(term);
      if (df === 0) continue;
      const factor = weight * idfOf(n, df) * (k1 + 1);
      for (const segment of segments) {
        const [from, to] = termRange(segment, term);
        const { docs, freqs } = segment;
        for (let p = from; p < to; p += 1) {
          const number = docs[p] as number;
          if ((states[number] as number) > visible) continue;
          if (inScope !== undefined && inScope[partitions[number] as number] !== 1) continue;
          const frequency = freqs[p] as number;
          const previous = accumulator[number] as number;
          if (previous === 0) touched[count++] = number;
          accumulator[number] =
            previous +
            (factor * frequency) / (frequency + base + lengthFactor * (lengths[number] as number));
        }
      }
    }
    return count;
  }

  /** Score-only terms: added to the `count` documents already touched, selecting none. */
  #scoreOnlyTerms(
    scoreOnly: ReadonlyMap<string, number> | undefined,
    { n, stats, k1, base, lengthFactor }: Norms,
    count: number,
  ): void {
    const { accumulator, touched, store } = this;
    const { segments, lengths } = store;
    for (const [text, weight] of scoreOnly ?? []) {
      const term = this.termNumbers.get(text);
      if (term === undefined || !(weight > 0) || count === 0) continue;
      // Out-of-scope documents were never touched, so they get nothing below.
      const df = stats.documentFrequency(term);
      if (df === 0) continue;
      const factor = weight * idfOf(n, df) * (k1 + 1);
      const add = (segment: Segment, p: number): void => {
        const number = segment.docs[p] as number;
        const previous = accumulator[number] as number;
        if (previous === 0) return;
        const frequency = segment.freqs[p] as number;
        accumulator[number] =
          previous +
          (factor * frequency) / (frequency + base + lengthFactor * (lengths[number] as number));
      };
      // Whichever is shorter: the candidates looked up in the postings, or the postings.
      if (count < df) {
        for (let i = 0; i < count; i += 1) {
          const posting = store.postingOf(term, touched[i] as number);
          if (posting) add(posting[0], posting[1]);
        }
      } else {
        for (const segment of segments) {
          const [from, to] = termRange(segment, term);
          for (let p = from; p < to; p += 1) add(segment, p);
        }
      }
    }
  }

  /** The term-dependence features of adjacent query terms, on the documents already touched. */
  #pairs(
    proximity: ProximityParams,
    pairs: readonly (readonly [string, string])[],
    { n, stats, k1, base, lengthFactor }: Norms,
    visible: number,
  ): void {
    const { accumulator } = this;
    const { lengths } = this.store;
    const matchOrdered = this.#matchOrdered;
    const matchUnordered = this.#matchUnordered;
    const matchDocument = this.#matchDocument;
    for (const [firstText, secondText] of pairs) {
      const first = this.termNumbers.get(firstText);
      const second = this.termNumbers.get(secondText);
      if (first === undefined || second === undefined || first === second) continue;
      const { matches, orderedDf } = this.#windowsOfPair(
        first,
        second,
        proximity.window,
        visible,
        stats.inScope,
      );
      if (matches === 0) continue;
      const orderedFactor = orderedDf > 0 ? proximity.ordered * idfOf(n, orderedDf) * (k1 + 1) : 0;
      const unorderedFactor = proximity.unordered * idfOf(n, matches) * (k1 + 1);
      for (let i = 0; i < matches; i += 1) {
        const number = matchDocument[i] as number;
        const previous = accumulator[number] as number;
        // Only documents the terms already found (and the filter has not yet seen).
        if (previous === 0) continue;
        const norm = base + lengthFactor * (lengths[number] as number);
        const ordered = matchOrdered[i] as number;
        const unordered = matchUnordered[i] as number;
        accumulator[number] =
          previous +
          (ordered > 0 ? (orderedFactor * ordered) / (ordered + norm) : 0) +
          (unorderedFactor * unordered) / (unordered + norm);
      }
    }
  }

  /**
   * Windows in every document that has both terms (for the pair's document frequencies): per
   * segment, the shorter list walked against the longer one. The documents with a window go
   * to the match scratch arrays.
   */
  #windowsOfPair(
    first: number,
    second: number,
    window: number,
    visible: number,
    inScope: Uint8Array | undefined,
  ): { matches: number; orderedDf: number } {
    const { segments, states, partitions } = this.store;
    const found = this.#found;
    const matchOrdered = this.#matchOrdered;
    const matchUnordered = this.#matchUnordered;
    const matchDocument = this.#matchDocument;
    let matches = 0;
    let orderedDf = 0;
    for (const segment of segments) {
      const [aFrom, aTo] = termRange(segment, first);
      const [bFrom, bTo] = termRange(segment, second);
      if (aFrom === aTo || bFrom === bTo) continue;
      const swapped = aTo - aFrom > bTo - bFrom;
      const [shortFrom, shortTo, longFrom, longTo] = swapped
        ? [bFrom, bTo, aFrom, aTo]
        : [aFrom, aTo, bFrom, bTo];
      let cursor = longFrom;
      for (let p = shortFrom; p < shortTo && cursor < longTo; p += 1) {
        const number = segment.docs[p] as number;
        if ((states[number] as number) > visible) continue;
        if (inScope !== undefined && inScope[partitions[number] as number] !== 1) continue;
        const q = findPosting(segment, cursor, longTo, number);
        if (q < 0) continue;
        cursor = q + 1;
        const [x, y] = swapped ? [q, p] : [p, q];
        windows(segment, x, y, window, this.fieldWeights, found);
        if (found[1] === 0) continue; // no unordered window, so no ordered one either
        if ((found[0] as number) > 0) orderedDf += 1;
        matchDocument[matches] = number;
        matchOrdered[matches] = found[0] as number;
        matchUnordered[matches] = found[1] as number;
        matches += 1;
      }
    }
    return { matches, orderedDf };
  }
}
