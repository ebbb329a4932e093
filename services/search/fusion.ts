/**
 * Fusion of the component lists. We use a convex combination of per-query normalised scores
 * rather than reciprocal rank fusion: RRF throws the score gaps away, so a weak list (a
 * corpus-derived embedding) pulls as hard as a strong one, and it cannot be weighted without
 * losing its one virtue (no tuning). A convex combination keeps the gaps, degrades gracefully
 * when one list is weak (small weight), and needs few judged queries to set (Bruch, Gai &
 * Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023).
 */
export type ScoreList = ReadonlyMap<string, number>;

export type Normalization = 'max' | 'min-max' | 'z-score';

/**
 * Puts a list's scores on a common scale: `max` divides by the maximum (lists whose theoretical
 * minimum is 0), `min-max` maps onto [0, 1], `z-score` subtracts the mean and divides by the
 * standard deviation, then shifts so the list's lowest score is 0 (a document absent from the
 * list counts as its floor, as with the other two). z-scores keep how far the best hits stand
 * out from the rest of the list, which max and min–max flatten: a query whose BM25 top hit
 * stands out pulls harder than one whose list is flat (Bruch et al. 2023; Kamalloo et al.
 * 2024 found it the most robust normalisation across collections).
 */
export const normalizeScores = (scores: ScoreList, mode: Normalization): Map<string, number> => {
  let max = -Infinity;
  let min = Infinity;
  let sum = 0;
  for (const value of scores.values()) {
    if (value > max) max = value;
    if (value < min) min = value;
    sum += value;
  }
  const out = new Map<string, number>();
  if (scores.size === 0) return out;
  if (mode === 'z-score') {
    const mean = sum / scores.size;
    let squares = 0;
    for (const value of scores.values()) squares += (value - mean) ** 2;
    const deviation = Math.sqrt(squares / scores.size);
    for (const [id, value] of scores) out.set(id, deviation > 0 ? (value - min) / deviation : 1);
    return out;
  }
  const floor = mode === 'max' ? 0 : min;
  const span = max - floor;
  for (const [id, value] of scores) out.set(id, span > 0 ? (value - floor) / span : 1);
  return out;
};

/** Σ weight × normalised score over the lists a document is in (absent counts as 0). */
export const convexCombination = (
  lists: readonly { readonly scores: ScoreList; readonly weight: number }[],
): Map<string, number> => {
  const fused = new Map<string, number>();
  for (const { scores, weight } of lists) {
    if (weight === 0) continue;
    for (const [id, value] of scores) fused.set(id, (fused.get(id) ?? 0) + weight * value);
  }
  return fused;
};

/** Reciprocal rank fusion (Cormack et al. 2009), kept for comparison in the evaluation. */
export const reciprocalRankFusion = (
  rankings: readonly (readonly string[])[],
  k = 60,
): Map<string, number> => {
  const fused = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => {
      fused.set(id, (fused.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return fused;
};

/**
 * The filter asked at most once per id (a widening candidate pool meets the same ids again);
 * no filter lets everything through.
 */
export const askOnce = (
  filter: ((id: string) => boolean) | undefined,
): ((id: string) => boolean) => {
  if (filter === undefined) return () => true;
  const verdicts = new Map<string, boolean>();
  return (id) => {
    let verdict = verdicts.get(id);
    if (verdict === undefined) {
      verdict = filter(id);
      verdicts.set(id, verdict);
    }
    return verdict;
  };
};

/** Best score first; equal scores by id, so output is stable. */
export const byScoreThenId = (a: [string, number], b: [string, number]): number =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * The `limit` best ids of a score map, best first; ties broken by id for stable output. Finds
 * the limit-th score by selection first, so only the winners are sorted (lists run to 10k).
 */
export const topK = (scores: ScoreList, limit: number): [string, number][] => {
  if (limit <= 0 || scores.size === 0) return [];
  if (scores.size <= limit * 4) return [...scores.entries()].sort(byScoreThenId).slice(0, limit);
  const values = Float64Array.from(scores.values());
  const threshold = kthLargest(values, limit);
  const winners: [string, number][] = [];
  for (const entry of scores) if (entry[1] >= threshold) winners.push(entry);
  return winners.sort(byScoreThenId).slice(0, limit);
};

/** Quickselect (in place): the k-th largest value (1-based). */
export const kthLargest = (values: Float64Array, k: number): number => {
  let low = 0;
  let high = values.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1] as number;
    let i = low;
    let j = high;
    while (i <= j) {
      while ((values[i] as number) > pivot) i += 1;
      while ((values[j] as number) < pivot) j -= 1;
      if (i <= j) {
        const swap = values[i] as number;
        values[i] = values[j] as number;
        values[j] = swap;
        i += 1;
        j -= 1;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else break;
  }
  return values[target] as number;
};
