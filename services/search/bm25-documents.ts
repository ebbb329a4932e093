import {
  documentOf,
  findPosting,
  SegmentBuilder,
  termRange,
  type AnalyzedDocument,
  type Segment,
} from './bm25-segment.js';
import { PartitionStatistics, type CorpusStatistics } from './bm25-partitions.js';
import { grown } from './bm25-positions.js';

/** More segments than this: the newer ones are merged into one. */
const MAX_SEGMENTS = 8;
/** Removed documents still in segments, beyond this share of the live ones: rewrite them all. */
const DEAD_SHARE = 0.25;
const DEAD_FLOOR = 256;

/** A document number's state: searched by default, only when every one is asked for, or gone. */
export const PRIMARY = 0;
export const SECONDARY = 1;
export const DEAD = 2;

/**
 * The BM25 index's documents and their segments. Documents get ascending numbers, never
 * reused until a merge renumbers them, so every term's postings ascend by document. Documents
 * set since the last commit wait in one pending segment; a commit lays it out and merges
 * segments when there are too many or too many documents in them are dead.
 *
 * The per-number arrays are public so the scoring loops read them as locals.
 */
export class DocumentSegments {
  readonly documents = new Map<string, number>();
  names: (string | undefined)[] = [];
  lengths = new Float64Array(0);
  // Per number: DEAD, PRIMARY or SECONDARY.
  states = new Uint8Array(0);
  documentFrequencies = new Int32Array(0);
  // Per number: the partition it counts in (see `PartitionStatistics`).
  partitions = new Int32Array(0);
  readonly partitionStatistics = new PartitionStatistics();
  nextNumber = 0;
  totalLength = 0;
  segments: Segment[] = [];
  #pending: SegmentBuilder | undefined;

  /** `termCount`: how many terms the dictionary holds (a segment's term table spans them). */
  constructor(private readonly termCount: () => number) {}

  liveCount(): number {
    return this.documents.size;
  }

  /** Adds a document (after `remove` of its id): numbered next, pending until the commit. */
  add(id: string, document: AnalyzedDocument, secondary: boolean, partition = ''): void {
    this.#pending ??= new SegmentBuilder(this.nextNumber);
    this.#pending.add(document);
    const number = this.nextNumber;
    this.nextNumber += 1;
    this.names[number] = id;
    this.lengths = grown(this.lengths, this.nextNumber, (n) => new Float64Array(n));
    this.states = grown(this.states, this.nextNumber, (n) => new Uint8Array(n));
    this.lengths[number] = document.length;
    this.states[number] = secondary ? SECONDARY : PRIMARY;
    this.partitions = grown(this.partitions, this.nextNumber, (n) => new Int32Array(n));
    const partitionNumber = this.partitionStatistics.numberOf(partition);
    this.partitions[number] = partitionNumber;
    this.documents.set(id, number);
    this.totalLength += document.length;
    const frequencies = grown(this.documentFrequencies, this.termCount(), (n) => new Int32Array(n));
    this.documentFrequencies = frequencies;
    for (const term of document.terms) {
      frequencies[term] = (frequencies[term] as number) + 1;
    }
    this.partitionStatistics.count(
      partitionNumber,
      document.length,
      document.terms,
      this.termCount(),
      1,
    );
  }

  /** The corpus as a search scoped to `inScope` partitions sees it (undefined: all of it). */
  statistics(inScope: Uint8Array | undefined): CorpusStatistics {
    if (inScope) return this.partitionStatistics.scoped(inScope);
    const frequencies = this.documentFrequencies;
    return {
      documents: this.liveCount(),
      totalLength: this.totalLength,
      documentFrequency: (term) => frequencies[term] ?? 0,
      inScope: undefined,
    };
  }

  remove(id: string): void {
    const number = this.documents.get(id);
    if (number === undefined) return;
    this.documents.delete(id);
    this.names[number] = undefined;
    this.states[number] = DEAD;
    this.totalLength -= this.lengths[number] as number;
    const terms = this.termsOf(number);
    for (const term of terms) {
      this.documentFrequencies[term] = (this.documentFrequencies[term] as number) - 1;
    }
    this.partitionStatistics.count(
      this.partitions[number] as number,
      this.lengths[number] as number,
      terms,
      this.termCount(),
      -1,
    );
  }

  setSecondary(id: string, secondary: boolean): void {
    const number = this.documents.get(id);
    if (number !== undefined) this.states[number] = secondary ? SECONDARY : PRIMARY;
  }

  commit(): void {
    if (!this.#pending) return;
    const built = this.#pending.finish(this.termCount());
    this.#pending = undefined;
    this.segments.push(built);
    const dead = this.nextNumber - this.liveCount();
    if (dead > DEAD_FLOOR && dead > DEAD_SHARE * this.liveCount()) this.#renumberAll();
    else if (this.segments.length > MAX_SEGMENTS) {
      this.#mergeFrom((this.segments[1] as Segment).first);
    }
  }

  segmentOf(number: number): Segment | undefined {
    const { segments } = this;
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
  }

  /** The term numbers of a document (pending or laid out). */
  termsOf(number: number): Int32Array {
    const pending = this.#pending;
    if (pending && number >= pending.first) return pending.termsOf(number - pending.first);
    const segment = this.segmentOf(number);
    if (!segment) return new Int32Array(0);
    const index = number - segment.first;
    return segment.docTerms.subarray(segment.docTermStart[index], segment.docTermStart[index + 1]);
  }

  /** The posting of `term` for `number`, as [segment, index], or undefined. */
  postingOf(term: number, number: number): [Segment, number] | undefined {
    const segment = this.segmentOf(number);
    if (!segment) return undefined;
    const [from, to] = termRange(segment, term);
    const p = findPosting(segment, from, to, number);
    return p < 0 ? undefined : [segment, p];
  }

  /** Rewrites every live document as one segment, numbered anew from 0. */
  #renumberAll(): void {
    const builder = new SegmentBuilder(0);
    const newNames: (string | undefined)[] = [];
    const oldNumbers: number[] = [];
    const newLengths = new Float64Array(Math.max(this.documents.size, 256));
    for (let number = 0; number < this.nextNumber; number += 1) {
      const id = this.names[number];
      if (id === undefined) continue;
      const segment = this.segmentOf(number) as Segment;
      const length = this.lengths[number] as number;
      builder.add(documentOf(segment, number, length));
      newLengths[newNames.length] = length;
      this.documents.set(id, newNames.length);
      newNames.push(id);
      oldNumbers.push(number);
    }
    this.names = newNames;
    this.lengths = newLengths;
    this.nextNumber = newNames.length;
    const newStates = new Uint8Array(Math.max(this.nextNumber, 256));
    const newPartitions = new Int32Array(Math.max(this.nextNumber, 256));
    for (let number = 0; number < oldNumbers.length; number += 1) {
      newStates[number] = this.states[oldNumbers[number] as number] as number;
      newPartitions[number] = this.partitions[oldNumbers[number] as number] as number;
    }
    this.states = newStates;
    this.partitions = newPartitions;
    this.segments = [builder.finish(this.termCount())];
  }

  /** Rewrites documents numbered from `from` on (live ones; numbers kept) as one segment. */
  #mergeFrom(from: number): void {
    const builder = new SegmentBuilder(from);
    const keep = this.segments.filter((segment) => segment.first < from);
    for (let number = from; number < this.nextNumber; number += 1) {
      const segment = this.segmentOf(number);
      builder.add(
        this.names[number] === undefined || !segment
          ? undefined
          : documentOf(segment, number, this.lengths[number] as number),
      );
    }
    this.segments = [...keep, builder.finish(this.termCount())];
  }
}
