/**
 * A seeded PRNG (mulberry32) and standard normals from it: the corpus-derived embedding must
 * be the same for the same corpus on every process and every run.
 */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** Box–Muller over a uniform source. */
export const seededNormal = (seed: number): (() => number) => {
  const uniform = seededRandom(seed);
  return () => {
    const u = Math.max(uniform(), Number.EPSILON);
    const v = uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
};
