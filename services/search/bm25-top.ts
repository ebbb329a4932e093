import { askOnce, byScoreThenId, kthLargest } from './fusion.js';

/**
 * The `limit` best-scoring documents that pass `filter`, best first (ties by id), of the
 * `count` documents touched (`touched`, their scores in `scores`, their ids in `names`). The
 * filter is asked only about the best candidates, the pool widening fourfold until enough
 * pass: a filter costs more than a score, and a common query term scores most of the corpus.
 */
export const bestPassing = (
  scores: Float64Array,
  touched: Int32Array,
  names: readonly (string | undefined)[],
  count: number,
  limit: number,
  filter: ((id: string) => boolean) | undefined,
): [string, number][] => {
  if (count === 0 || limit <= 0) return [];
  const passes = askOnce(filter);
  let pool = Math.min(count, Math.max(limit * 4, 64));
  for (;;) {
    let threshold = Number.NEGATIVE_INFINITY;
    if (pool < count) {
      const values = new Float64Array(count);
      for (let i = 0; i < count; i += 1) values[i] = scores[touched[i] as number] as number;
      threshold = kthLargest(values, pool);
    }
    const candidates: [string, number][] = [];
    for (let i = 0; i < count; i += 1) {
      const number = touched[i] as number;
      const score = scores[number] as number;
      if (score >= threshold) candidates.push([names[number] as string, score]);
    }
    candidates.sort(byScoreThenId);
    const chosen: [string, number][] = [];
    for (const candidate of candidates) {
      if (!passes(candidate[0])) continue;
      chosen.push(candidate);
      if (chosen.length === limit) return chosen;
    }
    if (pool >= count) return chosen;
    pool = Math.min(count, pool * 4);
  }
};
