import {
  documentOf,
  findPosting,
  SegmentBuilder,
  segmentBuffers,
  termRange,
  type AnalyzedDocument,
  type Segment,
} from './bm25-segment.js';
import { askOnce, byScoreThenId, kthLargest } from './fusion.js';

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
  set(id: string, fields: Readonly<Record<string, readonly string[]>>, secondary?: boolean): void;
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

export interface TopOptions {
  readonly limit: number;
  readonly filter?: ((id: string) => boolean) | undefined;
  readonly scoreOnly?: ReadonlyMap<string, number> | undefined;
  readonly pairs?: readonly (readonly [string, string])[] | undefined;
  /** Secondary documents too (default: primary ones only). */
  readonly all?: boolean | undefined;
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
}

/**
 * Positions are encoded as field × FIELD_SPAN + offset, so no window spans two fields and a
 * position's field (its weight) is recoverable.
 */
const FIELD_SPAN = 1 << 22;
const MAX_WINDOW = 64;
/** More segments than this: the newer ones are merged into one. */
const MAX_SEGMENTS = 8;
/** Removed documents still in segments, beyond this share of the live ones: rewrite them all. */
const DEAD_SHARE = 0.25;
const DEAD_FLOOR = 256;
const PRIMARY = 0;
const SECONDARY = 1;
const DEAD = 2;

/** A copy of `array` exactly `size` long (scratch arrays that must keep one length). */
const resized = <T extends Float32Array | Int32Array>(
  array: T,
  size: number,
  make: (size: number) => T,
): T => {
  const next = make(size);
  next.set(array.subarray(0, Math.min(array.length, size)));
  return next;
};

/** Growable per-number arrays of document facts: at least `size`, doubling. */
const grown = <T extends Float64Array | Int32Array | Uint8Array>(
  array: T,
  size: number,
  make: (size: number) => T,
): T => {
  if (size <= array.length) return array;
  const next = make(Math.max(size, array.length * 2, 256));
  next.set(array);
  return next;
};

export const createBm25Index = (options: Bm25Options): Bm25Index => {
  const fields = Object.entries(options.fields);
  for (const [name, weight] of fields) {
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
  const fieldWeights = fields.map(([, weight]) => weight);

  // Terms are numbered in the order first seen; documents get ascending numbers, never reused
  // until a merge renumbers them, so every term's postings ascend by document.
  const termNumbers = new Map<string, number>();
  const termNames: string[] = [];
  let documentFrequencies = new Int32Array(0);
  const documents = new Map<string, number>();
  let names: (string | undefined)[] = [];
  let lengths = new Float64Array(0);
  // Per number: DEAD, PRIMARY or SECONDARY.
  let states = new Uint8Array(0);
  let nextNumber = 0;
  let totalLength = 0;
  let segments: Segment[] = [];
  let pending: SegmentBuilder | undefined;

  let accumulator = new Float64Array(0);
  let touched = new Int32Array(0);
  // Scratch for the term-dependence features: per pair, the documents with a window.
  let matchDocument = new Int32Array(0);
  let matchOrdered = new Float64Array(0);
  let matchUnordered = new Float64Array(0);
  const found = new Float64Array(2);

  // Scratch of one document's analysis: per distinct term a slot, per token its slot and place.
  let stamp = new Int32Array(0);
  let slotOfTerm = new Int32Array(0);
  let generation = 0;
  let slotTerms = new Int32Array(64);
  let slotFreqs = new Float32Array(64);
  let slotCounts = new Int32Array(64);
  let slotStarts = new Int32Array(64);
  let tokenSlots = new Int32Array(1024);
  let tokenPlaces = new Int32Array(1024);
  let groupedPlaces = new Int32Array(1024);

  const termNumber = (term: string): number => {
    let number = termNumbers.get(term);
    if (number === undefined) {
      number = termNames.length;
      termNumbers.set(term, number);
      termNames.push(term);
    }
    return number;
  };

  /** One document's fields as term numbers (views of scratch arrays, valid until the next). */
  const analyzeDocument = (
    documentFields: Readonly<Record<string, readonly string[]>>,
  ): AnalyzedDocument => {
    generation += 1;
    let slots = 0;
    let tokens = 0;
    let length = 0;
    fields.forEach(([name, weight], field) => {
      if (weight === 0) return;
      const terms = documentFields[name] ?? [];
      const limit = Math.min(terms.length, FIELD_SPAN);
      if (tokenSlots.length < tokens + limit) {
        const size = Math.max(tokens + limit, tokenSlots.length * 2);
        tokenSlots = resized(tokenSlots, size, (n) => new Int32Array(n));
        tokenPlaces = resized(tokenPlaces, size, (n) => new Int32Array(n));
      }
      for (let offset = 0; offset < limit; offset += 1) {
        const text = terms[offset] as string;
        if (text.length === 0) continue;
        const term = termNumber(text);
        if (term >= stamp.length) {
          stamp = grown(stamp, term + 1, (n) => new Int32Array(n));
          slotOfTerm = grown(slotOfTerm, term + 1, (n) => new Int32Array(n));
        }
        let slot: number;
        if (stamp[term] === generation) slot = slotOfTerm[term] as number;
        else {
          slot = slots;
          slots += 1;
          if (slot >= slotTerms.length) {
            const size = slotTerms.length * 2;
            slotTerms = resized(slotTerms, size, (n) => new Int32Array(n));
            slotCounts = resized(slotCounts, size, (n) => new Int32Array(n));
            slotStarts = resized(slotStarts, size, (n) => new Int32Array(n));
            slotFreqs = resized(slotFreqs, size, (n) => new Float32Array(n));
          }
          stamp[term] = generation;
          slotOfTerm[term] = slot;
          slotTerms[slot] = term;
          slotFreqs[slot] = 0;
          slotCounts[slot] = 0;
        }
        slotFreqs[slot] = (slotFreqs[slot] as number) + weight;
        slotCounts[slot] = (slotCounts[slot] as number) + 1;
        tokenSlots[tokens] = slot;
        tokenPlaces[tokens] = field * FIELD_SPAN + offset;
        tokens += 1;
        length += weight;
      }
    });
    // Positions grouped by term, ascending within each (tokens were visited in order).
    let start = 0;
    for (let slot = 0; slot < slots; slot += 1) {
      slotStarts[slot] = start;
      start += slotCounts[slot] as number;
    }
    if (groupedPlaces.length < tokens) groupedPlaces = new Int32Array(tokenSlots.length);
    for (let i = 0; i < tokens; i += 1) {
      const slot = tokenSlots[i] as number;
      const at = slotStarts[slot] as number;
      groupedPlaces[at] = tokenPlaces[i] as number;
      slotStarts[slot] = at + 1;
    }
    return {
      terms: slotTerms.subarray(0, slots),
      freqs: slotFreqs.subarray(0, slots),
      positionCounts: slotCounts.subarray(0, slots),
      positions: groupedPlaces.subarray(0, tokens),
      length,
    };
  };

  const segmentOf = (number: number): Segment | undefined => {
    let low = 0;
    let high = segments.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const segment = segments[middle] as Segment;
      if (number < segment.first) high = middle - 1;
      else if (number >= segment.first + segment.count) low = middle + 1;
      else return segment;
    }
    return undefined;
  };

  const termsOf = (number: number): Int32Array => {
    if (pending && number >= pending.first) return pending.termsOf(number - pending.first);
    const segment = segmentOf(number);
    if (!segment) return new Int32Array(0);
    const index = number - segment.first;
    return segment.docTerms.subarray(segment.docTermStart[index], segment.docTermStart[index + 1]);
  };

  const liveCount = (): number => documents.size;

  /** Rewrites documents numbered from `from` on (live ones; numbers kept) as one segment. */
  const mergeFrom = (from: number, renumber: boolean): void => {
    const builder = new SegmentBuilder(renumber ? 0 : from);
    const keep = segments.filter((segment) => segment.first < from);
    if (renumber) {
      const newNames: (string | undefined)[] = [];
      const oldNumbers: number[] = [];
      const newLengths = new Float64Array(Math.max(documents.size, 256));
      for (let number = 0; number < nextNumber; number += 1) {
        const id = names[number];
        if (id === undefined) continue;
        const segment = segmentOf(number) as Segment;
        const length = lengths[number] as number;
        builder.add(documentOf(segment, number, length));
        newLengths[newNames.length] = length;
        documents.set(id, newNames.length);
        newNames.push(id);
        oldNumbers.push(number);
      }
      names = newNames;
      lengths = newLengths;
      nextNumber = newNames.length;
      const newStates = new Uint8Array(Math.max(nextNumber, 256));
      for (let number = 0; number < oldNumbers.length; number += 1) {
        newStates[number] = states[oldNumbers[number] as number] as number;
      }
      states = newStates;
      segments = [builder.finish(termNames.length)];
      return;
    }
    for (let number = from; number < nextNumber; number += 1) {
      const segment = segmentOf(number);
      builder.add(
        names[number] === undefined || !segment
          ? undefined
          : documentOf(segment, number, lengths[number] as number),
      );
    }
    segments = [...keep, builder.finish(termNames.length)];
  };

  const commit = (): void => {
    if (!pending) return;
    const built = pending.finish(termNames.length);
    pending = undefined;
    segments.push(built);
    const dead = nextNumber - liveCount();
    if (dead > DEAD_FLOOR && dead > DEAD_SHARE * liveCount()) mergeFrom(0, true);
    else if (segments.length > MAX_SEGMENTS) mergeFrom((segments[1] as Segment).first, false);
  };

  const remove = (id: string): void => {
    const number = documents.get(id);
    if (number === undefined) return;
    documents.delete(id);
    names[number] = undefined;
    states[number] = DEAD;
    totalLength -= lengths[number] as number;
    for (const term of termsOf(number)) {
      documentFrequencies[term] = (documentFrequencies[term] as number) - 1;
    }
  };

  /** The posting of `term` for `number`, as [segment, index], or undefined. */
  const postingOf = (term: number, number: number): [Segment, number] | undefined => {
    const segment = segmentOf(number);
    if (!segment) return undefined;
    const [from, to] = termRange(segment, term);
    const p = findPosting(segment, from, to, number);
    return p < 0 ? undefined : [segment, p];
  };

  /**
   * Scores every document the query terms select into `accumulator` (their numbers in
   * `touched`) and returns how many; the caller reads them out and zeroes the accumulator.
   */
  const accumulate = (
    query: ReadonlyMap<string, number>,
    scoreOnly: ReadonlyMap<string, number> | undefined,
    pairs: readonly (readonly [string, string])[] | undefined,
    all: boolean,
  ): number => {
    commit();
    // States above this are skipped: dead always, secondary unless every document is asked for.
    const visible = all ? SECONDARY : PRIMARY;
    const n = liveCount();
    if (query.size === 0 || n === 0) return 0;
    if (accumulator.length < nextNumber) {
      const size = Math.max(nextNumber * 2, 256);
      accumulator = new Float64Array(size);
      touched = new Int32Array(size);
      if (proximity) {
        matchDocument = new Int32Array(size);
        matchOrdered = new Float64Array(size);
        matchUnordered = new Float64Array(size);
      }
    }
    const average = totalLength / n;
    const lengthFactor = average > 0 ? (k1 * b) / average : 0;
    const base = k1 * (1 - b);
    const idfOf = (df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    let count = 0;
    for (const [text, weight] of query) {
      const term = termNumbers.get(text);
      // A positive weight keeps every contribution positive: 0 means "not touched yet".
      if (term === undefined || !(weight > 0)) continue;
      const df = documentFrequencies[term] as number;
      if (df === 0) continue;
      const factor = weight * idfOf(df) * (k1 + 1);
      for (const segment of segments) {
        const [from, to] = termRange(segment, term);
        const { docs, freqs } = segment;
        for (let p = from; p < to; p += 1) {
          const number = docs[p] as number;
          if ((states[number] as number) > visible) continue;
          const frequency = freqs[p] as number;
          const previous = accumulator[number] as number;
          if (previous === 0) touched[count++] = number;
          accumulator[number] =
            previous +
            (factor * frequency) / (frequency + base + lengthFactor * (lengths[number] as number));
        }
      }
    }
    for (const [text, weight] of scoreOnly ?? []) {
      const term = termNumbers.get(text);
      if (term === undefined || !(weight > 0) || count === 0) continue;
      const df = documentFrequencies[term] as number;
      if (df === 0) continue;
      const factor = weight * idfOf(df) * (k1 + 1);
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
          const posting = postingOf(term, touched[i] as number);
          if (posting) add(posting[0], posting[1]);
        }
      } else {
        for (const segment of segments) {
          const [from, to] = termRange(segment, term);
          for (let p = from; p < to; p += 1) add(segment, p);
        }
      }
    }
    if (proximity && pairs && count > 0) {
      for (const [firstText, secondText] of pairs) {
        const first = termNumbers.get(firstText);
        const second = termNumbers.get(secondText);
        if (first === undefined || second === undefined || first === second) continue;
        // Windows in every document that has both terms (for the pair's document
        // frequencies): per segment, the shorter list walked against the longer one.
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
            const q = findPosting(segment, cursor, longTo, number);
            if (q < 0) continue;
            cursor = q + 1;
            const [x, y] = swapped ? [q, p] : [p, q];
            windows(segment, x, y, proximity.window, fieldWeights, found);
            if (found[1] === 0) continue; // no unordered window, so no ordered one either
            if ((found[0] as number) > 0) orderedDf += 1;
            matchDocument[matches] = number;
            matchOrdered[matches] = found[0] as number;
            matchUnordered[matches] = found[1] as number;
            matches += 1;
          }
        }
        if (matches === 0) continue;
        const orderedFactor = orderedDf > 0 ? proximity.ordered * idfOf(orderedDf) * (k1 + 1) : 0;
        const unorderedFactor = proximity.unordered * idfOf(matches) * (k1 + 1);
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
    return count;
  };

  /**
   * The `limit` best-scoring documents that pass `filter`, best first (ties by id). The filter
   * is asked only about the best candidates, the pool widening fourfold until enough pass: a
   * filter costs more than a score, and a common query term scores most of the corpus.
   */
  const bestPassing = (
    count: number,
    limit: number,
    filter: ((id: string) => boolean) | undefined,
  ): [string, number][] => {
    if (count === 0 || limit <= 0) return [];
    const passes = askOnce(filter);
    let pool = Math.min(count, Math.max(limit * 4, 64));
    for (;;) {
      let threshold = Number.NEGATIVE_INFINITY;
      if (pool < count) {
        const values = new Float64Array(count);
        for (let i = 0; i < count; i += 1) values[i] = accumulator[touched[i] as number] as number;
        threshold = kthLargest(values, pool);
      }
      const candidates: [string, number][] = [];
      for (let i = 0; i < count; i += 1) {
        const number = touched[i] as number;
        const score = accumulator[number] as number;
        if (score >= threshold) candidates.push([names[number] as string, score]);
      }
      candidates.sort(byScoreThenId);
      const chosen: [string, number][] = [];
      for (const candidate of candidates) {
        if (!passes(candidate[0])) continue;
        chosen.push(candidate);
        if (chosen.length === limit) return chosen;
      }
      if (pool >= count) return chosen;
      pool = Math.min(count, pool * 4);
    }
  };

  return {
    get size() {
      return liveCount();
    },
    has: (id) => documents.has(id),
    set: (id, documentFields, secondary = false) => {
      remove(id);
      const document = analyzeDocument(documentFields);
      pending ??= new SegmentBuilder(nextNumber);
      pending.add(document);
      const number = nextNumber;
      nextNumber += 1;
      names[number] = id;
      lengths = grown(lengths, nextNumber, (n) => new Float64Array(n));
      states = grown(states, nextNumber, (n) => new Uint8Array(n));
      lengths[number] = document.length;
      states[number] = secondary ? SECONDARY : PRIMARY;
      documents.set(id, number);
      totalLength += document.length;
      documentFrequencies = grown(documentFrequencies, termNames.length, (n) => new Int32Array(n));
      for (const term of document.terms) {
        documentFrequencies[term] = (documentFrequencies[term] as number) + 1;
      }
    },
    remove,
    setSecondary: (id, secondary) => {
      const number = documents.get(id);
      if (number !== undefined) states[number] = secondary ? SECONDARY : PRIMARY;
    },
    commit,
    documentFrequency: (term) => {
      const number = termNumbers.get(term);
      return number === undefined ? 0 : (documentFrequencies[number] ?? 0);
    },
    termCounts: (id) => {
      commit();
      const number = documents.get(id);
      if (number === undefined) return undefined;
      const counts = new Map<string, number>();
      for (const term of termsOf(number)) {
        const posting = postingOf(term, number);
        if (posting) counts.set(termNames[term] as string, posting[0].freqs[posting[1]] as number);
      }
      return { counts, length: lengths[number] as number };
    },
    offsets: (id, text, fieldName) => {
      commit();
      const number = documents.get(id);
      const term = termNumbers.get(text);
      const field = fields.findIndex(([name]) => name === fieldName);
      if (number === undefined || term === undefined || field < 0) return [];
      const posting = postingOf(term, number);
      if (!posting) return [];
      const [segment, p] = posting;
      const found: number[] = [];
      for (let i = segment.posStart[p] as number; i < (segment.posStart[p + 1] as number); i += 1) {
        const position = segment.positions[i] as number;
        if (Math.floor(position / FIELD_SPAN) === field) found.push(position % FIELD_SPAN);
      }
      return found;
    },
    stats: () => {
      commit();
      let postings = 0;
      let bytes = 0;
      for (const segment of segments) {
        postings += segment.docs.length;
        bytes += segmentBuffers(segment).reduce((sum, buffer) => sum + buffer.byteLength, 0);
      }
      return {
        documents: liveCount(),
        terms: termNames.length,
        segments: segments.length,
        postings,
        deadDocuments: nextNumber - liveCount(),
        bytes,
      };
    },
    search: (query, filter, scoreOnly, pairs) => {
      const count = accumulate(query, scoreOnly, pairs, true);
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
    top: (query, { limit, filter, scoreOnly, pairs, all = false }) => {
      const count = accumulate(query, scoreOnly, pairs, all);
      try {
        return bestPassing(count, limit, filter);
      } finally {
        for (let i = 0; i < count; i += 1) accumulator[touched[i] as number] = 0;
      }
    },
  };
};

/**
 * Weighted counts of the two term-dependence features in one document, into `out`: [0]
 * ordered (y right after x), [1] unordered (an x with a y at most `window` − 1 positions away,
 * either side), each occurrence weighted by its field's weight, as the unigram frequencies are.
 * `x` and `y` are postings of the segment (the same document).
 */
const windows = (
  segment: Segment,
  x: number,
  y: number,
  window: number,
  weights: readonly number[],
  out: Float64Array,
): void => {
  const { positions, posStart } = segment;
  let ordered = 0;
  let unordered = 0;
  const yEnd = posStart[y + 1] as number;
  let j = posStart[y] as number;
  for (let i = posStart[x] as number; i < (posStart[x + 1] as number); i += 1) {
    const p = positions[i] as number;
    // y positions are ascending: skip those too far before p.
    while (j < yEnd && (positions[j] as number) <= p - window) j += 1;
    let near = false;
    let next = false;
    for (let k = j; k < yEnd; k += 1) {
      const q = positions[k] as number;
      if (q >= p + window) break;
      near = true;
      if (q === p + 1) next = true;
    }
    if (!near) continue;
    const weight = weights[Math.floor(p / FIELD_SPAN)] ?? 1;
    unordered += weight;
    if (next) ordered += weight;
  }
  out[0] = ordered;
  out[1] = unordered;
};
