/**
 * The storage of the BM25 index: immutable segments of postings in flat typed arrays (term →
 * documents, with weighted frequencies and token positions), built by a `SegmentBuilder` from
 * documents already turned into term numbers. A segment holds the documents numbered
 * `first … first + count − 1`; inside a term's postings the documents ascend. A segment is plain
 * data (typed arrays and numbers), so it can be built in a worker thread and transferred.
 *
 * Per posting: 4 bytes of document, 4 of frequency, 4 of position offset and 4 in the forward
 * index (a document's terms, for removal and feedback): 16 bytes, where the object-per-posting
 * index it replaced took about 100, and a contiguous walk instead of a hash map's.
 */
export interface Segment {
  /** Number of the segment's first document. */
  readonly first: number;
  /** Documents numbered from `first` (some may have no postings: removed before a merge). */
  readonly count: number;
  /** Postings of term t are `termStart[t] … termStart[t + 1] − 1` (terms numbered later: none). */
  readonly termStart: Int32Array;
  readonly docs: Int32Array;
  /** Weighted term frequency (each occurrence counted by its field's weight). */
  readonly freqs: Float32Array;
  /** Positions of posting p are `positions[posStart[p] … posStart[p + 1] − 1]`, ascending. */
  readonly posStart: Int32Array;
  readonly positions: Int32Array;
  /** Terms of document `first + i` are `docTerms[docTermStart[i] … docTermStart[i + 1] − 1]`. */
  readonly docTermStart: Int32Array;
  readonly docTerms: Int32Array;
}

/** A document as term numbers: distinct terms, their frequencies and positions grouped by term. */
export interface AnalyzedDocument {
  readonly terms: Int32Array;
  readonly freqs: Float32Array;
  /** How many positions each term has, in `positions`, term after term. */
  readonly positionCounts: Int32Array;
  readonly positions: Int32Array;
  /** Weighted token count (BM25F document length). */
  readonly length: number;
}

/** A growable Int32Array (or Float32Array) with a length. */
class Growable<T extends Int32Array | Float32Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (size: number) => T,
  ) {}
  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.data.length) return;
    const next = this.make(Math.max(needed, this.data.length * 2, 1024));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  push(value: number): void {
    if (this.length === this.data.length) this.reserve(1);
    this.data[this.length++] = value;
  }
  append(values: T, from = 0, to = values.length): void {
    this.reserve(to - from);
    this.data.set(values.subarray(from, to), this.length);
    this.length += to - from;
  }
  trimmed(): T {
    return this.data.slice(0, this.length) as T;
  }
}

const ints = (size: number): Int32Array => new Int32Array(size);
const floats = (size: number): Float32Array => new Float32Array(size);

/**
 * Collects documents (numbered consecutively from `first`; a number may be skipped, leaving
 * that document empty) and lays them out as one segment.
 */
export class SegmentBuilder {
  private readonly terms = new Growable(new Int32Array(1024), ints);
  private readonly freqs = new Growable(new Float32Array(1024), floats);
  private readonly positionCounts = new Growable(new Int32Array(1024), ints);
  private readonly positions = new Growable(new Int32Array(4096), ints);
  /** Start of each document's terms in `terms` (one more entry than documents). */
  private readonly docStart = new Growable(new Int32Array(256), ints);

  constructor(readonly first: number) {
    this.docStart.push(0);
  }

  /** Documents added (the next number is `first + count`). */
  get count(): number {
    return this.docStart.length - 1;
  }

  /** Adds document number `first + count` (an undefined document: an empty one). */
  add(document: AnalyzedDocument | undefined): void {
    if (document) {
      this.terms.append(document.terms);
      this.freqs.append(document.freqs);
      this.positionCounts.append(document.positionCounts);
      this.positions.append(document.positions);
    }
    this.docStart.push(this.terms.length);
  }

  /** The terms of document `first + index` added so far. */
  termsOf(index: number): Int32Array {
    return this.terms.data.subarray(this.docStart.data[index], this.docStart.data[index + 1]);
  }

  /** The segment of every document added; `termCount`: how many terms are numbered now. */
  finish(termCount: number): Segment {
    const postings = this.terms.length;
    const entryTerms = this.terms.data;
    const termStart = new Int32Array(termCount + 1);
    for (let e = 0; e < postings; e += 1) {
      const slot = (entryTerms[e] as number) + 1;
      termStart[slot] = (termStart[slot] as number) + 1;
    }
    for (let t = 0; t < termCount; t += 1)
      termStart[t + 1] = (termStart[t + 1] as number) + (termStart[t] as number);
    const cursor = termStart.slice(0, termCount);
    const docs = new Int32Array(postings);
    const freqs = new Float32Array(postings);
    const counts = new Int32Array(postings);
    // Where each entry (document, term) lands among the postings: term-major, documents
    // ascending within a term because documents are visited in order.
    const slotOf = new Int32Array(postings);
    const docStart = this.docStart.data;
    for (let d = 0; d < this.count; d += 1) {
      const number = this.first + d;
      for (let e = docStart[d] as number; e < (docStart[d + 1] as number); e += 1) {
        const term = entryTerms[e] as number;
        const p = cursor[term] as number;
        cursor[term] = p + 1;
        docs[p] = number;
        freqs[p] = this.freqs.data[e] as number;
        counts[p] = this.positionCounts.data[e] as number;
        slotOf[e] = p;
      }
    }
    const posStart = new Int32Array(postings + 1);
    for (let p = 0; p < postings; p += 1)
      posStart[p + 1] = (posStart[p] as number) + (counts[p] as number);
    const positions = new Int32Array(posStart[postings] as number);
    let read = 0;
    for (let e = 0; e < postings; e += 1) {
      const count = this.positionCounts.data[e] as number;
      positions.set(
        this.positions.data.subarray(read, read + count),
        posStart[slotOf[e] as number],
      );
      read += count;
    }
    return {
      first: this.first,
      count: this.count,
      termStart,
      docs,
      freqs,
      posStart,
      positions,
      docTermStart: this.docStart.trimmed(),
      docTerms: this.terms.trimmed(),
    };
  }
}

/** The postings range of `term` in a segment (empty when the segment predates the term). */
export const termRange = (segment: Segment, term: number): [number, number] => {
  const { termStart } = segment;
  if (term + 1 >= termStart.length) return [0, 0];
  return [termStart[term] as number, termStart[term + 1] as number];
};

/** The posting of `doc` in `from … to − 1` of a segment's documents, or −1 (binary search). */
export const findPosting = (segment: Segment, from: number, to: number, doc: number): number => {
  const { docs } = segment;
  let low = from;
  let high = to - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = docs[middle] as number;
    if (value === doc) return middle;
    if (value < doc) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
};

/** A document of a segment back in its analyzed form (to merge segments). */
export const documentOf = (
  segment: Segment,
  doc: number,
  length: number,
): AnalyzedDocument | undefined => {
  const index = doc - segment.first;
  const from = segment.docTermStart[index] as number;
  const to = segment.docTermStart[index + 1] as number;
  if (to === from) return undefined;
  const terms = segment.docTerms.slice(from, to);
  const freqs = new Float32Array(terms.length);
  const positionCounts = new Int32Array(terms.length);
  const postings = new Int32Array(terms.length);
  let total = 0;
  for (let i = 0; i < terms.length; i += 1) {
    const [start, end] = termRange(segment, terms[i] as number);
    const p = findPosting(segment, start, end, doc);
    postings[i] = p;
    freqs[i] = segment.freqs[p] as number;
    const count = (segment.posStart[p + 1] as number) - (segment.posStart[p] as number);
    positionCounts[i] = count;
    total += count;
  }
  const positions = new Int32Array(total);
  let at = 0;
  for (let i = 0; i < terms.length; i += 1) {
    const p = postings[i] as number;
    const from = segment.posStart[p] as number;
    const to = segment.posStart[p + 1] as number;
    positions.set(segment.positions.subarray(from, to), at);
    at += to - from;
  }
  return { terms, freqs, positionCounts, positions, length };
};

/** Every typed array of a segment (to transfer it between threads). */
export const segmentBuffers = (segment: Segment): ArrayBuffer[] =>
  [
    segment.termStart,
    segment.docs,
    segment.freqs,
    segment.posStart,
    segment.positions,
    segment.docTermStart,
    segment.docTerms,
  ].map((array) => array.buffer as ArrayBuffer);
