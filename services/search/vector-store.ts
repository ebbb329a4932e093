import { askOnce, kthLargest } from './fusion.js';
import { createSimdDot } from './simd-dot.js';

const bestFirst = (a: [string, number], b: [string, number]): number =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Unit vectors in one contiguous float32 buffer (a slot per document, freed slots reused), the
 * memory of a small WebAssembly SIMD kernel (`simd-dot.ts`), so a brute-force scan of 10,000 ×
 * 256 dimensions is one call of a fraction of a millisecond rather than 10,000 objects.
 */
export interface VectorStore {
  readonly size: number;
  readonly dimensions: number;
  set(id: string, vector: Float32Array, secondary?: boolean): void;
  /** Marks a stored document secondary (scanned only when every document is asked for). */
  setSecondary(id: string, secondary: boolean): void;
  remove(id: string): void;
  clear(): void;
  /**
   * Cosines of the `limit` documents closest to the (unit) query that `accept` lets through
   * (all when undefined); positive ones only.
   */
  scan(
    query: Float32Array,
    accept: ((id: string) => boolean) | undefined,
    limit: number,
    all?: boolean,
  ): Map<string, number>;
  /** Adds `weight` × a stored document's vector to `target` (nothing when it is missing). */
  addTo(target: Float32Array, id: string, weight: number): void;
  /** Cosine of two stored documents (0 when either is missing). */
  similarity(a: string, b: string): number;
}

const PAGE = 65_536;

/** Float storage for the query row, the document rows and the scan's output, in one buffer. */
interface Backing {
  buffer(): ArrayBuffer;
  /** Makes the buffer at least `bytes` long, keeping its content. */
  ensure(bytes: number): void;
  /** out[r] = query · row r for rows [0, rows). */
  scan(rows: number, rowBytes: number, outOffset: number): void;
}

const createBacking = (): Backing => {
  const simd = createSimdDot();
  if (simd) {
    return {
      buffer: () => simd.memory.buffer,
      ensure: (bytes) => {
        const missing = bytes - simd.memory.buffer.byteLength;
        if (missing > 0) simd.memory.grow(Math.ceil(missing / PAGE));
      },
      scan: (rows, rowBytes, outOffset) => {
        simd.scan(0, rowBytes, rows, rowBytes, outOffset);
      },
    };
  }
  let buffer = new ArrayBuffer(PAGE);
  return {
    buffer: () => buffer,
    ensure: (bytes) => {
      if (bytes <= buffer.byteLength) return;
      const next = new ArrayBuffer(Math.max(bytes, buffer.byteLength * 2));
      new Uint8Array(next).set(new Uint8Array(buffer));
      buffer = next;
    },
    scan: (rows, rowBytes, outOffset) => {
      const stride = rowBytes / 4;
      const all = new Float32Array(buffer);
      const out = new Float32Array(buffer, outOffset, rows);
      for (let row = 0; row < rows; row += 1) {
        const base = (row + 1) * stride;
        let a0 = 0;
        let a1 = 0;
        for (let i = 0; i < stride; i += 2) {
          a0 += (all[i] as number) * (all[base + i] as number);
          a1 += (all[i + 1] as number) * (all[base + i + 1] as number);
        }
        out[row] = a0 + a1;
      }
    },
  };
};

export const createVectorStore = (): VectorStore => {
  const backing = createBacking();
  let dimensions = 0;
  // Rows are padded to 8 floats (the SIMD loop's step); the query row is row 0 of the buffer.
  let stride = 0;
  let capacity = 0;
  let ids: (string | undefined)[] = [];
  let secondaries = new Uint8Array(0);
  const slots = new Map<string, number>();
  const free: number[] = [];
  // A scratch copy of the scores for selection, reused across scans.
  let work = new Float64Array(0);

  const rowBytes = (): number => stride * 4;
  const outOffset = (): number => rowBytes() * (capacity + 1);
  // A view of the whole buffer, renewed when the buffer grows (growing detaches the old one).
  let view = new Float32Array(backing.buffer());
  const floats = (): Float32Array => {
    if (view.buffer !== backing.buffer()) view = new Float32Array(backing.buffer());
    return view;
  };
  const reserve = (slotCount: number): void => {
    if (slotCount <= capacity) return;
    capacity = Math.max(64, capacity * 2, slotCount);
    backing.ensure(outOffset() + capacity * 4);
    work = new Float64Array(capacity);
    const flags = new Uint8Array(capacity);
    flags.set(secondaries.subarray(0, Math.min(secondaries.length, capacity)));
    secondaries = flags;
  };
  const reset = (dimension: number): void => {
    dimensions = dimension;
    stride = Math.ceil(dimension / 8) * 8;
    capacity = 0;
    ids = [];
    secondaries = new Uint8Array(0);
    slots.clear();
    free.length = 0;
  };

  return {
    get size() {
      return slots.size;
    },
    get dimensions() {
      return dimensions;
    },
    set: (id, vector, secondary = false) => {
      // A new embedder (or its first vector): start over with its dimension.
      if (dimensions !== vector.length) reset(vector.length);
      let slot = slots.get(id);
      if (slot === undefined) {
        slot = free.pop() ?? ids.length;
        if (slot === ids.length) ids.push(id);
        else ids[slot] = id;
        slots.set(id, slot);
        reserve(slot + 1);
      }
      floats().set(vector, (slot + 1) * stride);
      secondaries[slot] = secondary ? 1 : 0;
    },
    setSecondary: (id, secondary) => {
      const slot = slots.get(id);
      if (slot !== undefined) secondaries[slot] = secondary ? 1 : 0;
    },
    remove: (id) => {
      const slot = slots.get(id);
      if (slot === undefined) return;
      slots.delete(id);
      ids[slot] = undefined;
      free.push(slot);
    },
    clear: () => {
      reset(0);
    },
    scan: (query, accept, limit, all = false) => {
      const top = new Map<string, number>();
      if (query.length !== dimensions || limit <= 0 || ids.length === 0) return top;
      const count = ids.length;
      floats().set(query, 0);
      // One pass over every row, no filter and no allocation: the filter is a closure over
      // request metadata and costs more than the dot product, so it runs only on the
      // best-scoring candidates below.
      backing.scan(count, rowBytes(), outOffset());
      const out = new Float32Array(backing.buffer(), outOffset(), count);
      let positive = 0;
      for (let slot = 0; slot < count; slot += 1) {
        // Freed slots hold stale vectors; they never become candidates, nor do secondary
        // documents unless every document is asked for.
        const score =
          ids[slot] === undefined || (!all && secondaries[slot] === 1) ? 0 : (out[slot] as number);
        const kept = score > 0 ? score : 0;
        out[slot] = kept;
        work[slot] = kept;
        if (kept > 0) positive += 1;
      }
      const scores = out;
      // Each candidate is asked once, however often the pool widens.
      const passes = askOnce(accept);
      // Widen the candidate pool until `limit` of them pass the filter (or none are left).
      let want = accept === undefined ? limit : limit * 4;
      for (;;) {
        const pool = Math.min(want, positive);
        const threshold =
          positive > pool ? kthLargest(work.subarray(0, count), pool) : Number.MIN_VALUE;
        const candidates: [string, number][] = [];
        for (let slot = 0; slot < count; slot += 1) {
          const score = scores[slot] as number;
          if (score > 0 && score >= threshold) candidates.push([ids[slot] as string, score]);
        }
        candidates.sort(bestFirst);
        top.clear();
        for (const candidate of candidates) {
          if (passes(candidate[0])) top.set(candidate[0], candidate[1]);
          if (top.size >= limit) return top;
        }
        if (pool >= positive) return top;
        want *= 4;
        for (let slot = 0; slot < count; slot += 1) work[slot] = scores[slot] as number;
      }
    },
    addTo: (target, id, weight) => {
      const slot = slots.get(id);
      if (slot === undefined || target.length !== dimensions) return;
      const data = floats();
      const base = (slot + 1) * stride;
      for (let i = 0; i < dimensions; i += 1) {
        target[i] = (target[i] as number) + weight * (data[base + i] as number);
      }
    },
    similarity: (a, b) => {
      const x = slots.get(a);
      const y = slots.get(b);
      if (x === undefined || y === undefined) return 0;
      const data = floats();
      let dot = 0;
      const xb = (x + 1) * stride;
      const yb = (y + 1) * stride;
      for (let i = 0; i < dimensions; i += 1) {
        dot += (data[xb + i] as number) * (data[yb + i] as number);
      }
      return dot;
    },
  };
};
