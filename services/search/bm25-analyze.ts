import type { AnalyzedDocument } from './bm25-segment.js';
import { FIELD_SPAN, grown, resized } from './bm25-positions.js';

/**
 * The index's term dictionary (terms numbered in the order first seen) and the analysis of one
 * document into term numbers, weighted frequencies and grouped positions. The scratch arrays
 * are reused from one document to the next: a document's analysis is views of them, valid
 * until the next.
 */
export class DocumentAnalyzer {
  readonly termNumbers = new Map<string, number>();
  readonly termNames: string[] = [];

  // Scratch of one document's analysis: per distinct term a slot, per token its slot and place.
  #stamp = new Int32Array(0);
  #slotOfTerm = new Int32Array(0);
  #generation = 0;
  #slotTerms = new Int32Array(64);
  #slotFreqs = new Float32Array(64);
  #slotCounts = new Int32Array(64);
  #slotStarts = new Int32Array(64);
  #tokenSlots = new Int32Array(1024);
  #tokenPlaces = new Int32Array(1024);
  #groupedPlaces = new Int32Array(1024);

  /** `fields`: each field's name and weight, in the index's order. */
  constructor(private readonly fields: readonly (readonly [string, number])[]) {}

  termNumber(term: string): number {
    let number = this.termNumbers.get(term);
    if (number === undefined) {
      number = this.termNames.length;
      this.termNumbers.set(term, number);
      this.termNames.push(term);
    }
    return number;
  }

  /** One document's fields as term numbers (views of scratch arrays, valid until the next). */
  analyze(documentFields: Readonly<Record<string, readonly string[]>>): AnalyzedDocument {
    this.#generation += 1;
    const generation = this.#generation;
    let slots = 0;
    let tokens = 0;
    let length = 0;
    this.fields.forEach(([name, weight], field) => {
      if (weight === 0) return;
      const terms = documentFields[name] ?? [];
      const limit = Math.min(terms.length, FIELD_SPAN);
      if (this.#tokenSlots.length < tokens + limit) {
        const size = Math.max(tokens + limit, this.#tokenSlots.length * 2);
        this.#tokenSlots = resized(this.#tokenSlots, size, (n) => new Int32Array(n));
        this.#tokenPlaces = resized(this.#tokenPlaces, size, (n) => new Int32Array(n));
      }
      for (let offset = 0; offset < limit; offset += 1) {
        const text = terms[offset] as string;
        if (text.length === 0) continue;
        const term = this.termNumber(text);
        if (term >= this.#stamp.length) {
          this.#stamp = grown(this.#stamp, term + 1, (n) => new Int32Array(n));
          this.#slotOfTerm = grown(this.#slotOfTerm, term + 1, (n) => new Int32Array(n));
        }
        let slot: number;
        if (this.#stamp[term] === generation) slot = this.#slotOfTerm[term] as number;
        else {
          slot = slots;
          slots += 1;
          if (slot >= this.#slotTerms.length) this.#growSlots();
          this.#stamp[term] = generation;
          this.#slotOfTerm[term] = slot;
          this.#slotTerms[slot] = term;
          this.#slotFreqs[slot] = 0;
          this.#slotCounts[slot] = 0;
        }
        this.#slotFreqs[slot] = (this.#slotFreqs[slot] as number) + weight;
        this.#slotCounts[slot] = (this.#slotCounts[slot] as number) + 1;
        this.#tokenSlots[tokens] = slot;
        this.#tokenPlaces[tokens] = field * FIELD_SPAN + offset;
        tokens += 1;
        length += weight;
      }
    });
    this.#groupPositions(slots, tokens);
    return {
      terms: this.#slotTerms.subarray(0, slots),
      freqs: this.#slotFreqs.subarray(0, slots),
      positionCounts: this.#slotCounts.subarray(0, slots),
      positions: this.#groupedPlaces.subarray(0, tokens),
      length,
    };
  }

  #growSlots(): void {
    const size = this.#slotTerms.length * 2;
    this.#slotTerms = resized(this.#slotTerms, size, (n) => new Int32Array(n));
    this.#slotCounts = resized(this.#slotCounts, size, (n) => new Int32Array(n));
    this.#slotStarts = resized(this.#slotStarts, size, (n) => new Int32Array(n));
    this.#slotFreqs = resized(this.#slotFreqs, size, (n) => new Float32Array(n));
  }

  /** Positions grouped by term, ascending within each (tokens were visited in order). */
  #groupPositions(slots: number, tokens: number): void {
    const slotStarts = this.#slotStarts;
    const slotCounts = this.#slotCounts;
    let start = 0;
    for (let slot = 0; slot < slots; slot += 1) {
      slotStarts[slot] = start;
      start += slotCounts[slot] as number;
    }
    if (this.#groupedPlaces.length < tokens) {
      this.#groupedPlaces = new Int32Array(this.#tokenSlots.length);
    }
    const grouped = this.#groupedPlaces;
    const tokenSlots = this.#tokenSlots;
    const tokenPlaces = this.#tokenPlaces;
    for (let i = 0; i < tokens; i += 1) {
      const slot = tokenSlots[i] as number;
      const at = slotStarts[slot] as number;
      grouped[at] = tokenPlaces[i] as number;
      slotStarts[slot] = at + 1;
    }
  }
}
