import { grown } from './bm25-positions.js';

/**
 * The corpus statistics BM25 scores with — documents, total length, each term's document
 * frequency — as a search sees them: the whole index, or only the partitions in a caller's
 * scope (see `PartitionStatistics`).
 */
export interface CorpusStatistics {
  readonly documents: number;
  readonly totalLength: number;
  documentFrequency(term: number): number;
  /** Per partition number, 1 when in scope; undefined: every document is. */
  readonly inScope: Uint8Array | undefined;
}

/**
 * Statistics kept per partition (a group of documents a read scope admits or refuses whole,
 * e.g. one label and product): live documents, total length and per-term document frequency.
 * A scoped search sums the partitions in its scope, so nothing it scores with depends on a
 * document outside it. Partitions are few (labels × products), so the sums are cheap; each
 * costs one 32-bit counter per dictionary term.
 */
export class PartitionStatistics {
  readonly names: string[] = [];
  readonly #numbers = new Map<string, number>();
  readonly #documents: number[] = [];
  readonly #totalLengths: number[] = [];
  #frequencies: Int32Array[] = [];

  /** The number of a partition, registered on first use. */
  numberOf(name: string): number {
    let number = this.#numbers.get(name);
    if (number === undefined) {
      number = this.names.length;
      this.#numbers.set(name, number);
      this.names.push(name);
      this.#documents.push(0);
      this.#totalLengths.push(0);
      this.#frequencies.push(new Int32Array(0));
    }
    return number;
  }

  /** Counts a document in (sign 1) or out (sign −1) of its partition. */
  count(
    partition: number,
    length: number,
    terms: Iterable<number>,
    termCount: number,
    sign: 1 | -1,
  ): void {
    this.#documents[partition] = (this.#documents[partition] as number) + sign;
    this.#totalLengths[partition] = (this.#totalLengths[partition] as number) + sign * length;
    const frequencies = grown(
      this.#frequencies[partition] as Int32Array,
      termCount,
      (n) => new Int32Array(n),
    );
    this.#frequencies[partition] = frequencies;
    for (const term of terms) frequencies[term] = (frequencies[term] as number) + sign;
  }

  /** Which partitions `accepts` admits, as a mask by partition number. */
  mask(accepts: (partition: string) => boolean): Uint8Array {
    return Uint8Array.from(this.names, (name) => (accepts(name) ? 1 : 0));
  }

  /** The statistics of the partitions in `inScope` (summed in partition order). */
  scoped(inScope: Uint8Array): CorpusStatistics {
    const chosen: number[] = [];
    for (let p = 0; p < this.names.length; p += 1) if (inScope[p] === 1) chosen.push(p);
    let documents = 0;
    let totalLength = 0;
    for (const p of chosen) {
      documents += this.#documents[p] as number;
      totalLength += this.#totalLengths[p] as number;
    }
    const frequencies = chosen.map((p) => this.#frequencies[p] as Int32Array);
    return {
      documents,
      totalLength,
      documentFrequency: (term) => {
        let df = 0;
        for (const array of frequencies) df += array[term] ?? 0;
        return df;
      },
      inScope,
    };
  }

  /** Bytes of the per-term counters. */
  bytes(): number {
    return this.#frequencies.reduce((sum, array) => sum + array.byteLength, 0);
  }

  /** Documents and total length of one partition (for tests and stats). */
  partition(name: string): { documents: number; totalLength: number } | undefined {
    const number = this.#numbers.get(name);
    if (number === undefined) return undefined;
    return {
      documents: this.#documents[number] as number,
      totalLength: this.#totalLengths[number] as number,
    };
  }
}
