/**
 * BM25F over a small inverted index of its own (term → document → weighted frequency). Field
 * weights are applied as term-frequency weights before saturation: a field of weight w
 * contributes its terms w times to one combined field, which is BM25F with a shared length
 * normalisation (Robertson, Zaragoza & Taylor, "Simple BM25 extension to multiple weighted
 * fields", CIKM 2004). Summing a separate BM25 per field instead counts a term's IDF once per
 * field it occurs in and over-rewards title matches (measured: 0.626 against 0.684 nDCG@10 on
 * scifact). Lucene's IDF; a document's length is its number of distinct terms (as MiniSearch,
 * which this replaced, measures it: same scores, without its per-result match bookkeeping,
 * which cost more than the scoring on common terms).
 */
export interface Bm25Params {
  /** Term-frequency saturation. */
  readonly k1: number;
  /** Length normalisation (0: none, 1: full). */
  readonly b: number;
}

export interface Bm25Options {
  /** Field name → weight (a whole number ≥ 0); documents give each field's analyzed terms. */
  readonly fields: Readonly<Record<string, number>>;
  readonly params: Bm25Params;
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
   * terms found but select none (very common terms). Returns id → score.
   */
  search(
    query: ReadonlyMap<string, number>,
    filter?: (id: string) => boolean,
    scoreOnly?: ReadonlyMap<string, number>,
  ): Map<string, number>;
}

/** A posting: the document's number, the term's weighted frequency in it, its length. */
type Posting = readonly [document: number, frequency: number, length: number];

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
  // Documents get small numbers (freed ones reused) so a search accumulates into a typed
  // array; term → document number → posting; document → its number and terms (for removal).
  const postings = new Map<string, Map<number, Posting>>();
  const documents = new Map<string, { readonly number: number; readonly terms: string[] }>();
  const names: (string | undefined)[] = [];
  const free: number[] = [];
  let totalLength = 0;
  let accumulator = new Float64Array(0);
  let touched = new Int32Array(0);

  const remove = (id: string): void => {
    const entry = documents.get(id);
    if (!entry) return;
    documents.delete(id);
    names[entry.number] = undefined;
    free.push(entry.number);
    totalLength -= entry.terms.length;
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
      for (const [name, weight] of fields) {
        if (weight === 0) continue;
        for (const term of documentFields[name] ?? []) {
          if (term.length > 0) counts.set(term, (counts.get(term) ?? 0) + weight);
        }
      }
      const number = free.pop() ?? names.length;
      names[number] = id;
      const length = counts.size;
      for (const [term, frequency] of counts) {
        let list = postings.get(term);
        if (!list) postings.set(term, (list = new Map<number, Posting>()));
        list.set(number, [number, frequency, length]);
      }
      documents.set(id, { number, terms: [...counts.keys()] });
      totalLength += length;
    },
    remove,
    search: (query, filter, scoreOnly) => {
      const scores = new Map<string, number>();
      const n = documents.size;
      if (query.size === 0 || n === 0) return scores;
      if (accumulator.length < names.length) {
        accumulator = new Float64Array(names.length * 2);
        touched = new Int32Array(names.length * 2);
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
