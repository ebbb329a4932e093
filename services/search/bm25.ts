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
  readonly size: number;
  has(id: string): boolean;
  /** Adds or replaces a document; each field holds its analyzed terms. */
  set(id: string, fields: Readonly<Record<string, readonly string[]>>): void;
  remove(id: string): void;
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
}

/**
 * A posting: the document's number, the term's weighted frequency in it, its length, and where
 * its positions start and end in the document's position array.
 */
type Posting = readonly [
  document: number,
  frequency: number,
  length: number,
  start: number,
  end: number,
];

/**
 * Positions are encoded as field × FIELD_SPAN + offset, so no window spans two fields and a
 * position's field (its weight) is recoverable.
 */
const FIELD_SPAN = 1 << 22;
const MAX_WINDOW = 64;

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
  // Documents get small numbers (freed ones reused) so a search accumulates into a typed
  // array; term → document number → posting; document → its number and terms (for removal).
  const postings = new Map<string, Map<number, Posting>>();
  const documents = new Map<
    string,
    { readonly number: number; readonly terms: string[]; readonly length: number }
  >();
  const names: (string | undefined)[] = [];
  const positionsOf: (Int32Array | undefined)[] = [];
  const fieldWeights = fields.map(([, weight]) => weight);
  const free: number[] = [];
  let totalLength = 0;
  let accumulator = new Float64Array(0);
  let touched = new Int32Array(0);
  // Scratch for the term-dependence features: per pair, the documents with a window.
  let matchDocument = new Int32Array(0);
  let matchLength = new Float64Array(0);
  let matchOrdered = new Float64Array(0);
  let matchUnordered = new Float64Array(0);
  const found = new Float64Array(2);

  const remove = (id: string): void => {
    const entry = documents.get(id);
    if (!entry) return;
    documents.delete(id);
    names[entry.number] = undefined;
    positionsOf[entry.number] = undefined;
    free.push(entry.number);
    totalLength -= entry.length;
    for (const term of entry.terms) {
      const list = postings.get(term);
      list?.delete(entry.number);
      if (list?.size === 0) postings.delete(term);
    }
  };

  return {
    get size() {
      return documents.size;
    },
    has: (id) => documents.has(id),
    set: (id, documentFields) => {
      remove(id);
      const counts = new Map<string, number>();
      const places = new Map<string, number[]>();
      let total = 0;
      fields.forEach(([name, weight], field) => {
        if (weight === 0) return;
        const terms = documentFields[name] ?? [];
        const limit = Math.min(terms.length, FIELD_SPAN);
        for (let offset = 0; offset < limit; offset += 1) {
          const term = terms[offset] as string;
          if (term.length === 0) continue;
          counts.set(term, (counts.get(term) ?? 0) + weight);
          let list = places.get(term);
          if (!list) places.set(term, (list = []));
          list.push(field * FIELD_SPAN + offset);
          total += 1;
        }
      });
      const number = free.pop() ?? names.length;
      names[number] = id;
      let length = 0;
      for (const frequency of counts.values()) length += frequency;
      const positions = new Int32Array(total);
      let at = 0;
      for (const [term, frequency] of counts) {
        let list = postings.get(term);
        if (!list) postings.set(term, (list = new Map<number, Posting>()));
        const start = at;
        for (const position of places.get(term) ?? []) positions[at++] = position;
        list.set(number, [number, frequency, length, start, at]);
      }
      positionsOf[number] = positions;
      documents.set(id, { number, terms: [...counts.keys()], length });
      totalLength += length;
    },
    remove,
    search: (query, filter, scoreOnly, pairs) => {
      const scores = new Map<string, number>();
      const n = documents.size;
      if (query.size === 0 || n === 0) return scores;
      if (accumulator.length < names.length) {
        accumulator = new Float64Array(names.length * 2);
        touched = new Int32Array(names.length * 2);
        if (proximity) {
          matchDocument = new Int32Array(names.length * 2);
          matchLength = new Float64Array(names.length * 2);
          matchOrdered = new Float64Array(names.length * 2);
          matchUnordered = new Float64Array(names.length * 2);
        }
      }
      const average = totalLength / n;
      const lengthFactor = average > 0 ? (k1 * b) / average : 0;
      const base = k1 * (1 - b);
      const factorOf = (list: ReadonlyMap<number, Posting>, weight: number): number => {
        const df = list.size;
        return weight * Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (k1 + 1);
      };
      let count = 0;
      for (const [term, weight] of query) {
        const list = postings.get(term);
        // A positive weight keeps every contribution positive: 0 means "not touched yet".
        if (!list || !(weight > 0)) continue;
        const factor = factorOf(list, weight);
        for (const [number, frequency, length] of list.values()) {
          const previous = accumulator[number] as number;
          if (previous === 0) touched[count++] = number;
          accumulator[number] =
            previous + (factor * frequency) / (frequency + base + lengthFactor * length);
        }
      }
      for (const [term, weight] of scoreOnly ?? []) {
        const list = postings.get(term);
        if (!list || !(weight > 0) || count === 0) continue;
        const factor = factorOf(list, weight);
        const add = (posting: Posting | undefined): void => {
          if (posting === undefined) return;
          const [number, frequency, length] = posting;
          const previous = accumulator[number] as number;
          if (previous === 0) return;
          accumulator[number] =
            previous + (factor * frequency) / (frequency + base + lengthFactor * length);
        };
        // Whichever is shorter: the candidates looked up in the postings, or the postings.
        if (count < list.size) for (let i = 0; i < count; i += 1) add(list.get(touched[i] ?? -1));
        else for (const posting of list.values()) add(posting);
      }
      if (proximity && pairs && count > 0) {
        for (const [first, second] of pairs) {
          const a = postings.get(first);
          const b = postings.get(second);
          if (!a || !b || first === second) continue;
          // Windows in every document that has both terms (for the pair's document
          // frequencies), by walking the shorter list against the longer one.
          const swapped = a.size > b.size;
          const [short, long] = swapped ? [b, a] : [a, b];
          let matches = 0;
          let orderedDf = 0;
          for (const posting of short.values()) {
            const other = long.get(posting[0]);
            if (other === undefined) continue;
            const positions = positionsOf[posting[0]] as Int32Array;
            if (swapped) windows(positions, other, posting, proximity.window, fieldWeights, found);
            else windows(positions, posting, other, proximity.window, fieldWeights, found);
            if (found[1] === 0) continue; // no unordered window, so no ordered one either
            if ((found[0] as number) > 0) orderedDf += 1;
            matchDocument[matches] = posting[0];
            matchLength[matches] = posting[2];
            matchOrdered[matches] = found[0] as number;
            matchUnordered[matches] = found[1] as number;
            matches += 1;
          }
          if (matches === 0) continue;
          const idfOf = (df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));
          const orderedFactor = orderedDf > 0 ? proximity.ordered * idfOf(orderedDf) * (k1 + 1) : 0;
          const unorderedFactor = proximity.unordered * idfOf(matches) * (k1 + 1);
          for (let i = 0; i < matches; i += 1) {
            const number = matchDocument[i] as number;
            const previous = accumulator[number] as number;
            // Only documents the terms already found (and the filter has not yet seen).
            if (previous === 0) continue;
            const norm = base + lengthFactor * (matchLength[i] as number);
            const ordered = matchOrdered[i] as number;
            const unordered = matchUnordered[i] as number;
            accumulator[number] =
              previous +
              (ordered > 0 ? (orderedFactor * ordered) / (ordered + norm) : 0) +
              (unorderedFactor * unordered) / (unordered + norm);
          }
        }
      }
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
  };
};

/**
 * Weighted counts of the two term-dependence features in one document, into `out`: [0]
 * ordered (y right after x), [1] unordered (an x with a y at most `window` − 1 positions away,
 * either side), each occurrence weighted by its field's weight, as the unigram frequencies are.
 */
const windows = (
  positions: Int32Array,
  x: Posting,
  y: Posting,
  window: number,
  weights: readonly number[],
  out: Float64Array,
): void => {
  let ordered = 0;
  let unordered = 0;
  let j = y[3];
  for (let i = x[3]; i < x[4]; i += 1) {
    const p = positions[i] as number;
    // y positions are ascending: skip those too far before p.
    while (j < y[4] && (positions[j] as number) <= p - window) j += 1;
    let near = false;
    let next = false;
    for (let k = j; k < y[4]; k += 1) {
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
