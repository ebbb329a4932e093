/**
 * The vector scan's inner loop in WebAssembly SIMD: the dot product of one query with every row
 * of a row-major float32 matrix, four lanes at a time with two accumulators. Scoring 10,000 ×
 * 256 dimensions is the largest cost of a search in plain JavaScript (~3 ms); this makes it a
 * fraction of a millisecond. Hand-assembled (a few dozen instructions) so there is no build step
 * and no dependency; `createSimdDot` returns undefined where SIMD is unavailable and the caller
 * keeps its JavaScript loop.
 *
 *   scan(query, data, rows, rowBytes, out):  out[r] = Σ_i query[i] · data[r · rowBytes + i]
 *
 * All arguments are byte offsets or counts in the module's own memory; `rowBytes` must be a
 * positive multiple of 32 (rows are padded to 8 floats).
 */
const v128Zero = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
const localGet = (index: number): number[] => [0x20, index];
const localSet = (index: number): number[] => [0x21, index];
const localTee = (index: number): number[] => [0x22, index];
const v128Load = (offset: number): number[] => [0xfd, 0x00, 0x00, offset];
const f32x4Add = [0xfd, 0xe4, 0x01];
const f32x4Mul = [0xfd, 0xe6, 0x01];
const extractLane = (lane: number): number[] => [0xfd, 0x1f, lane];
const I32_ADD = 0x6a;
const I32_MUL = 0x6c;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const F32_ADD = 0x92;
const BR_IF = 0x0d;
const END = 0x0b;

// Parameters 0–4: query, data, rows, rowBytes, out. Locals: 5 end, 6 i (i32); 7, 8 acc (v128).
const [QUERY, DATA, ROWS, ROW_BYTES, OUT, LAST, I, ACC0, ACC1] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const body = [
  ...[0x02, 0x02, 0x7f, 0x02, 0x7b], // locals: 2 × i32, 2 × v128
  ...localGet(DATA),
  ...localGet(ROWS),
  ...localGet(ROW_BYTES),
  I32_MUL,
  I32_ADD,
  ...localSet(LAST),
  ...[0x02, 0x40], // block
  ...localGet(DATA),
  ...localGet(LAST),
  I32_GE_U,
  ...[BR_IF, 0],
  ...[0x03, 0x40], // loop over rows
  ...v128Zero,
  ...localSet(ACC0),
  ...v128Zero,
  ...localSet(ACC1),
  ...[0x41, 0x00], // i32.const 0
  ...localSet(I),
  ...[0x03, 0x40], // loop over 8-float chunks
  ...localGet(ACC0),
  ...localGet(QUERY),
  ...localGet(I),
  I32_ADD,
  ...v128Load(0),
  ...localGet(DATA),
  ...localGet(I),
  I32_ADD,
  ...v128Load(0),
  ...f32x4Mul,
  ...f32x4Add,
  ...localSet(ACC0),
  ...localGet(ACC1),
  ...localGet(QUERY),
  ...localGet(I),
  I32_ADD,
  ...v128Load(16),
  ...localGet(DATA),
  ...localGet(I),
  I32_ADD,
  ...v128Load(16),
  ...f32x4Mul,
  ...f32x4Add,
  ...localSet(ACC1),
  ...localGet(I),
  ...[0x41, 0x20], // i32.const 32
  I32_ADD,
  ...localTee(I),
  ...localGet(ROW_BYTES),
  I32_LT_U,
  ...[BR_IF, 0],
  END,
  ...localGet(OUT),
  ...localGet(ACC0),
  ...localGet(ACC1),
  ...f32x4Add,
  ...localTee(ACC0),
  ...extractLane(0),
  ...localGet(ACC0),
  ...extractLane(1),
  F32_ADD,
  ...localGet(ACC0),
  ...extractLane(2),
  F32_ADD,
  ...localGet(ACC0),
  ...extractLane(3),
  F32_ADD,
  ...[0x38, 0x02, 0x00], // f32.store
  ...localGet(OUT),
  ...[0x41, 0x04], // i32.const 4
  I32_ADD,
  ...localSet(OUT),
  ...localGet(DATA),
  ...localGet(ROW_BYTES),
  I32_ADD,
  ...localTee(DATA),
  ...localGet(LAST),
  I32_LT_U,
  ...[BR_IF, 0],
  END,
  END,
  END,
];

const leb = (value: number): number[] => {
  const out: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
};
const section = (id: number, content: readonly number[]): number[] => [
  id,
  ...leb(content.length),
  ...content,
];
const name = (text: string): number[] => [text.length, ...Buffer.from(text, 'utf8')];

const MODULE_BYTES = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // (i32 × 5) → ()
  ...section(3, [0x01, 0x00]),
  ...section(5, [0x01, 0x00, 0x01]), // one memory, at least one page
  ...section(7, [0x02, ...name('memory'), 0x02, 0x00, ...name('scan'), 0x00, 0x00]),
  ...section(10, [0x01, ...leb(body.length), ...body]),
]);

// The project compiles without the DOM library, whose types declare WebAssembly's JS API; the
// few members used here are typed locally.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}

export interface SimdDot {
  readonly memory: WasmMemory;
  scan(query: number, data: number, rows: number, rowBytes: number, out: number): void;
}

/** A fresh instance (its own memory); undefined where WebAssembly SIMD is not supported. */
export const createSimdDot = (): SimdDot | undefined => {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm?.validate(MODULE_BYTES)) return undefined;
  const { exports } = new wasm.Instance(new wasm.Module(MODULE_BYTES));
  return {
    memory: exports.memory as WasmMemory,
    scan: exports.scan as SimdDot['scan'],
  };
};
