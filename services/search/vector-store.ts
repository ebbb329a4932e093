import { askOnce, kthLargest } from './fusion.js';
import { createSimdDot } from './simd-dot.js';

const bestFirst = (a: [string, number], b: [string, number]): number =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Unit vectors in contiguous float32 buffers (a slot per document, freed slots reused), the
 * memory of a small WebAssembly SIMD kernel (`simd-dot.ts`), so a brute-force scan of 10,000 ×
 * 256 dimensions is one call of a fraction of a millisecond rather than 10,000 objects.
 * Primary and secondary documents live in partitions of their own: a default search scans
 * only the primary rows (a site kept in 27 versions has 26 secondary rows per primary one).
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

/** One partition's rows: every row it holds is scanned. */
interface Partition {
  readonly size: number;
  has(id: string): boolean;
  set(id: string, vector: Float32Array): void;
  remove(id: string): void;
  /** Forgets every row; the next rows have `dimension` floats. */
  reset(dimension: number): void;
  /** A view of a stored row (valid until the next `set`), or undefined. */
  row(id: string): Float32Array | undefined;
  /** The partition's floats and where a stored row starts in them (no view made). */
  floats(): Float32Array;
  start(id: string): number | undefined;
  scan(
    query: Float32Array,
    accept: ((id: string) => boolean) | undefined,
    limit: number,
  ): [string, number][];
}

const createPartition = (): Partition => {
  const backing = createBacking();
  let dimensions = 0;
  // Rows are padded to 8 floats (the SIMD loop's step); the query row is row 0 of the buffer.
  let stride = 0;
  let capacity = 0;
  let ids: (string | undefined)[] = [];
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
  };

  return {
    get size() {
      return slots.size;
    },
    has: (id) => slots.has(id),
    set: (id, vector) => {
      let slot = slots.get(id);
      if (slot === undefined) {
        slot = free.pop() ?? ids.length;
        if (slot === ids.length) ids.push(id);
        else ids[slot] = id;
        slots.set(id, slot);
        reserve(slot + 1);
      }
      floats().set(vector.subarray(0, dimensions), (slot + 1) * stride);
    },
    remove: (id) => {
      const slot = slots.get(id);
      if (slot === undefined) return;
      slots.delete(id);
      ids[slot] = undefined;
      free.push(slot);
    },
    reset: (dimension) => {
      dimensions = dimension;
      stride = Math.ceil(dimension / 8) * 8;
      capacity = 0;
      ids = [];
      slots.clear();
      free.length = 0;
    },
    row: (id) => {
      const slot = slots.get(id);
      if (slot === undefined) return undefined;
      const base = (slot + 1) * stride;
      return floats().subarray(base, base + dimensions);
    },
    floats,
    start: (id) => {
      const slot = slots.get(id);
      return slot === undefined ? undefined : (slot + 1) * stride;
    },
    scan: (query, accept, limit) => {
      const count = ids.length;
      if (limit <= 0 || count === 0) return [];
      floats().set(query, 0);
      // One pass over every row, no filter and no allocation: the filter is a closure over
      // request metadata and costs more than the dot product, so it runs only on the
      // best-scoring candidates below.
      backing.scan(count, rowBytes(), outOffset());
      const out = new Float32Array(backing.buffer(), outOffset(), count);
      let positive = 0;
      for (let slot = 0; slot < count; slot += 1) {
        // Freed slots hold stale vectors; they never become candidates.
        const score = ids[slot] === undefined ? 0 : (out[slot] as number);
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
        const top: [string, number][] = [];
        for (const candidate of candidates) {
          if (passes(candidate[0])) top.push(candidate);
          if (top.length >= limit) return top;
        }
        if (pool >= positive) return top;
        want *= 4;
        for (let slot = 0; slot < count; slot += 1) work[slot] = scores[slot] as number;
      }
    },
  };
};

export const createVectorStore = (): VectorStore => {
  const primary = createPartition();
  const secondary = createPartition();
  let dimensions = 0;
  const rowOf = (id: string): Float32Array | undefined => primary.row(id) ?? secondary.row(id);

  return {
    get size() {
      return primary.size + secondary.size;
    },
    get dimensions() {
      return dimensions;
    },
    set: (id, vector, isSecondary = false) => {
      // A new embedder (or its first vector): start over with its dimension.
      if (dimensions !== vector.length) {
        dimensions = vector.length;
        primary.reset(dimensions);
        secondary.reset(dimensions);
      }
      (isSecondary ? primary : secondary).remove(id);
      (isSecondary ? secondary : primary).set(id, vector);
    },
    setSecondary: (id, isSecondary) => {
      const from = isSecondary ? primary : secondary;
      const row = from.row(id);
      if (row === undefined) return;
      const vector = Float32Array.from(row);
      from.remove(id);
      (isSecondary ? secondary : primary).set(id, vector);
    },
    remove: (id) => {
      primary.remove(id);
      secondary.remove(id);
    },
    clear: () => {
      dimensions = 0;
      primary.reset(0);
      secondary.reset(0);
    },
    scan: (query, accept, limit, all = false) => {
      if (query.length !== dimensions || limit <= 0) return new Map();
      const found = primary.scan(query, accept, limit);
      // Each partition's best `limit` that pass: together they hold the best `limit` of all.
      if (all) found.push(...secondary.scan(query, accept, limit));
      return new Map(found.sort(bestFirst).slice(0, limit));
    },
    addTo: (target, id, weight) => {
      const row = rowOf(id);
      if (row === undefined || target.length !== dimensions) return;
      for (let i = 0; i < dimensions; i += 1) {
        target[i] = (target[i] as number) + weight * (row[i] as number);
      }
    },
    similarity: (a, b) => {
      // Called for pairs of a search's top documents: offsets, not views, so nothing is made.
      const x = primary.start(a);
      const y = primary.start(b);
      const xs = x === undefined ? secondary : primary;
      const ys = y === undefined ? secondary : primary;
      const xb = x ?? secondary.start(a);
      const yb = y ?? secondary.start(b);
      if (xb === undefined || yb === undefined) return 0;
      const xf = xs.floats();
      const yf = ys.floats();
      let dot = 0;
      for (let i = 0; i < dimensions; i += 1) {
        dot += (xf[xb + i] as number) * (yf[yb + i] as number);
      }
      return dot;
    },
  };
};
