import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GraphEdge } from '../../services/search/graph.js';
import type { RetrievalDocument } from '../../services/search/retriever.js';

/** A test collection in BEIR layout: corpus.jsonl, queries.jsonl, qrels/test.tsv. */
export interface Collection {
  readonly name: string;
  readonly documents: RetrievalDocument[];
  /** Document links the collection carries (`xrefs`: [doc, count, weight]), as edges. */
  readonly edges: GraphEdge[];
  /** Judged queries only (at least one relevant document). */
  readonly queries: { readonly id: string; readonly text: string }[];
  /** query id → document id → graded gain (> 0). */
  readonly qrels: Map<string, Map<string, number>>;
}

interface CorpusLine {
  _id: string | number;
  title?: string;
  text?: string;
  xrefs?: [number | string, number, number][];
}

const jsonLines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);

export const loadCollection = (dir: string): Collection => {
  const corpus = jsonLines<CorpusLine>(join(dir, 'corpus.jsonl'));
  const edges: GraphEdge[] = [];
  const documents = corpus.map((line) => {
    const id = String(line._id);
    for (const [target, count] of line.xrefs ?? []) {
      if (String(target) !== id)
        edges.push({ source: id, target: String(target), type: 'xref', weight: count });
    }
    return { id, fields: { title: line.title ?? '', body: line.text ?? '' } };
  });
  const qrels = new Map<string, Map<string, number>>();
  const lines = readFileSync(join(dir, 'qrels', 'test.tsv'), 'utf8')
    .split('\n')
    .slice(1);
  for (const line of lines) {
    const [query, doc, score] = line.trim().split('\t');
    if (query === undefined || doc === undefined || score === undefined) continue;
    const gain = Number(score);
    if (!(gain > 0)) continue;
    let judged = qrels.get(query);
    if (!judged) qrels.set(query, (judged = new Map<string, number>()));
    judged.set(doc, gain);
  }
  const queries = jsonLines<{ _id: string | number; text: string }>(join(dir, 'queries.jsonl'))
    .map((query) => ({ id: String(query._id), text: query.text }))
    .filter((query) => qrels.has(query.id));
  return {
    name: dir.replace(/\/+$/, '').split('/').pop() ?? dir,
    documents,
    edges,
    queries,
    qrels,
  };
};

/** nDCG@k with linear gain and log2 discount, as pytrec_eval computes it. */
export const ndcgAt = (
  ranking: readonly string[],
  judged: ReadonlyMap<string, number>,
  k: number,
): number => {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, index) => {
    dcg += (judged.get(id) ?? 0) / Math.log2(index + 2);
  });
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
};

export const recallAt = (
  ranking: readonly string[],
  judged: ReadonlyMap<string, number>,
  k: number,
): number => {
  if (judged.size === 0) return 0;
  const found = ranking.slice(0, k).filter((id) => judged.has(id)).length;
  return found / judged.size;
};
