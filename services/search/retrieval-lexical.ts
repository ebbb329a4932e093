import type { Bm25Index, Bm25Scope } from './bm25.js';
import { topK } from './fusion.js';
import type { PassageCounts, RetrievalDocument, RetrievalSettings } from './retriever.js';

/** Below this many documents a query is scored in full (no common-terms split). */
const PRUNE_FROM_DOCUMENTS = 1000;

/** RM3 as Anserini sets it by default (Lavrenko & Croft 2001): 10 documents, 10 terms, λ 0.5. */
export const RM3_DEFAULTS = { documents: 10, terms: 10, originalWeight: 0.5 } as const;

/**
 * Where each passage of a document indexed with passages starts among the field's terms (and,
 * last, the field's length).
 */
export interface Passages {
  readonly field: string;
  readonly starts: Int32Array;
}

/**
 * BM25 with Elasticsearch's common-terms split: query terms found in more than
 * `commonTermCutoff` of the documents do not select candidates (when all are common, the
 * rarest one does); they are scored (same formula as the index) only on the documents the
 * selecting terms found. Documents matching common terms alone are dropped (they would rank
 * low anyway); every score that remains is exact, and a term in most of the corpus no longer
 * costs a result per document. With a `scope`, only its documents are scored, and the split
 * counts documents and frequencies within it.
 */
export const lexicalTop = (
  bm25: Bm25Index,
  commonTermCutoff: number,
  terms: ReadonlyMap<string, number>,
  depth: number,
  filter: ((id: string) => boolean) | undefined,
  all: boolean,
  pairs: readonly (readonly [string, string])[] = [],
  scope?: Bm25Scope,
): [string, number][] => {
  const n = scope ? scope.size : bm25.size;
  const documentFrequency = (term: string): number =>
    scope ? scope.documentFrequency(term) : bm25.documentFrequency(term);
  const inScope = scope?.inScope;
  // A small corpus is cheap to score in full.
  if (n < PRUNE_FROM_DOCUMENTS) {
    return bm25.top(terms, { limit: depth, filter, pairs, all, inScope });
  }
  const limit = commonTermCutoff * n;
  const rare = new Map<string, number>();
  const common: [string, number][] = [];
  for (const [term, weight] of terms) {
    if (documentFrequency(term) <= limit) rare.set(term, weight);
    else common.push([term, weight]);
  }
  if (common.length === 0) return bm25.top(terms, { limit: depth, filter, pairs, all, inScope });
  if (rare.size === 0) {
    // Every term is common: the rarest one selects the candidates.
    common.sort((x, y) => documentFrequency(x[0]) - documentFrequency(y[0]));
    const [rarest] = common.splice(0, 1);
    if (rarest) rare.set(rarest[0], rarest[1]);
  }
  // Pairs of two common terms still count: skipping them lost 0.0065 nDCG@10 on cisi.
  const scoreOnly = new Map(common);
  return bm25.top(rare, { limit: depth, filter, scoreOnly, pairs, all, inScope });
};

/** RM3: the original query interpolated with a relevance model of the top documents. */
export const expandQuery = (
  bm25: Bm25Index,
  settings: RetrievalSettings,
  query: Map<string, number>,
  first: readonly [string, number][],
): Map<string, number> => {
  const feedback = settings.feedback ?? RM3_DEFAULTS;
  const top = first.slice(0, feedback.documents);
  const total = top.reduce((sum, [, score]) => sum + score, 0);
  if (top.length === 0 || total <= 0) return query;
  const model = new Map<string, number>();
  for (const [id, score] of top) {
    const entry = bm25.termCounts(id);
    if (!entry || entry.length === 0) continue;
    for (const [term, count] of entry.counts) {
      model.set(term, (model.get(term) ?? 0) + (score / total) * (count / entry.length));
    }
  }
  const expansion = topK(model, feedback.terms);
  const expansionTotal = expansion.reduce((sum, [, weight]) => sum + weight, 0);
  const queryTotal = [...query.values()].reduce((sum, weight) => sum + weight, 0);
  const expanded = new Map<string, number>();
  for (const [term, weight] of query) {
    expanded.set(term, (feedback.originalWeight * weight) / queryTotal);
  }
  for (const [term, weight] of expansion) {
    expanded.set(
      term,
      (expanded.get(term) ?? 0) + ((1 - feedback.originalWeight) * weight) / expansionTotal,
    );
  }
  return expanded;
};

/** Analyzes a document's fields into `target`, noting where its passages start. */
export const indexDocument = (
  analyze: (text: string) => string[],
  fieldNames: readonly string[],
  target: Bm25Index,
  targetPassages: Map<string, Passages>,
  document: RetrievalDocument,
): void => {
  const analyzed: Record<string, string[]> = {};
  targetPassages.delete(document.id);
  for (const name of fieldNames) {
    const text = document.fields[name] ?? '';
    if (document.passages?.field !== name) {
      analyzed[name] = analyze(text);
      continue;
    }
    // Passage by passage (a word never spans a start), so their term counts are known.
    const offsets = [...document.passages.offsets, text.length];
    const terms: string[] = [];
    const starts = new Int32Array(offsets.length);
    for (let i = 0; i + 1 < offsets.length; i += 1) {
      starts[i] = terms.length;
      for (const term of analyze(text.slice(offsets[i], offsets[i + 1]))) terms.push(term);
    }
    starts[offsets.length - 1] = terms.length;
    analyzed[name] = terms;
    targetPassages.set(document.id, { field: name, starts });
  }
  target.set(document.id, analyzed, document.secondary === true, document.partition);
};

/** The terms' occurrences per passage of a document, and each passage's length in terms. */
export const passageCountsOf = (
  bm25: Bm25Index,
  known: Passages,
  id: string,
  terms: readonly string[],
): PassageCounts => {
  const { starts } = known;
  const counts = Array.from({ length: starts.length - 1 }, () => new Map<string, number>());
  for (const term of new Set(terms)) {
    let passage = 0;
    for (const offset of bm25.offsets(id, term, known.field)) {
      // Offsets ascend, so the passage only moves forward.
      while (passage + 2 < starts.length && (starts[passage + 1] as number) <= offset) {
        passage += 1;
      }
      const count = counts[passage] as Map<string, number>;
      count.set(term, (count.get(term) ?? 0) + 1);
    }
  }
  const lengths = counts.map((_, i) => (starts[i + 1] as number) - (starts[i] as number));
  return { counts, lengths };
};
