import type { Segment } from './bm25-segment.js';

/**
 * Positions are encoded as field × FIELD_SPAN + offset, so no window spans two fields and a
 * position's field (its weight) is recoverable.
 */
export const FIELD_SPAN = 1 << 22;
/** The widest unordered window a BM25 index accepts. */
export const MAX_WINDOW = 64;

/** A copy of `array` exactly `size` long (scratch arrays that must keep one length). */
export const resized = <T extends Float32Array | Int32Array>(
  array: T,
  size: number,
  make: (size: number) => T,
): T => {
  const next = make(size);
  next.set(array.subarray(0, Math.min(array.length, size)));
  return next;
};

/** Growable per-number arrays of document facts: at least `size`, doubling. */
export const grown = <T extends Float64Array | Int32Array | Uint8Array>(
  array: T,
  size: number,
  make: (size: number) => T,
): T => {
  if (size <= array.length) return array;
  const next = make(Math.max(size, array.length * 2, 256));
  next.set(array);
  return next;
};

/** The offsets within field number `field` among a posting's positions, ascending. */
export const fieldOffsets = (segment: Segment, p: number, field: number): number[] => {
  const found: number[] = [];
  for (let i = segment.posStart[p] as number; i < (segment.posStart[p + 1] as number); i += 1) {
    const position = segment.positions[i] as number;
    if (Math.floor(position / FIELD_SPAN) === field) found.push(position % FIELD_SPAN);
  }
  return found;
};

/**
 * Weighted counts of the two term-dependence features in one document, into `out`: [0]
 * ordered (y right after x), [1] unordered (an x with a y at most `window` − 1 positions away,
 * either side), each occurrence weighted by its field's weight, as the unigram frequencies are.
 * `x` and `y` are postings of the segment (the same document).
 */
export const windows = (
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
