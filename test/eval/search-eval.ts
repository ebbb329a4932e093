import { performance } from 'node:perf_hooks';
import { createLsaEmbedder, type LsaOptions } from '../../services/search/lsa.js';
import {
  createHybridRetriever,
  DEFAULT_RETRIEVAL_SETTINGS,
  type RetrievalSettings,
  type SearchComponents,
} from '../../services/search/retriever.js';
import { loadCollection, ndcgAt, recallAt } from './collection.js';

/**
 * Retrieval quality on BEIR-layout collections: nDCG@10 and Recall@100 of each component and
 * of the hybrid, with the product's default settings (the same for every collection).
 *
 *   npm run eval:search -- <collection dir> [<collection dir> ...]
 *     [--settings JSON]   overrides of the retrieval settings (tuning; null turns one off)
 *     [--lsa JSON]        options of the built-in embedder (`{"dimensions":384}`)
 *     [--modes 1,3,...]   rows to run (numbers as listed below)
 *     [--markdown]        one Markdown table at the end: modes × collections
 */
const MODES: { readonly name: string; readonly components: SearchComponents }[] = [
  { name: 'BM25F', components: { feedback: false, vector: false, graph: false } },
  { name: 'BM25F + RM3', components: { feedback: true, vector: false, graph: false } },
  { name: 'vector', components: { bm25: false, graph: false } },
  {
    name: 'hybrid, no vector feedback, graph off',
    components: { vectorFeedback: false, graph: false },
  },
  { name: 'hybrid, graph off', components: { graph: false } },
  { name: 'hybrid, graph on (default)', components: {} },
];

interface Row {
  readonly mode: string;
  readonly ndcg: number;
  readonly recall: number;
  readonly msPerQuery: number;
}

interface Result {
  readonly collection: string;
  readonly embedder: string;
  readonly buildSeconds: number;
  readonly longestPause: number;
  readonly rows: Row[];
}

const run = async (
  dir: string,
  settings: RetrievalSettings,
  lsa: LsaOptions,
  modes: typeof MODES,
  verbose: boolean,
): Promise<Result> => {
  const collection = loadCollection(dir);
  const retriever = createHybridRetriever({ embedder: createLsaEmbedder(lsa), settings });
  // The longest event-loop pause during the build (how long a search would have waited): the
  // largest gap between ticks of a 10 ms timer.
  let longestPause = 0;
  let lastTick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    longestPause = Math.max(longestPause, (now - lastTick) / 1000);
    lastTick = now;
  }, 10);
  const started = performance.now();
  await retriever.rebuild(collection.documents, collection.edges);
  const buildSeconds = (performance.now() - started) / 1000;
  // The pause that ends with the build is recorded at the next tick: let it run.
  await new Promise((resolve) => setTimeout(resolve, 30));
  clearInterval(ticker);
  if (verbose) {
    process.stdout.write(
      `\n${collection.name}: ${collection.documents.length} documents, ${collection.edges.length} edges, ${collection.queries.length} judged queries; index build ${buildSeconds.toFixed(2)} s (${retriever.embedderName}), longest event-loop pause ${longestPause.toFixed(2)} s\n`,
    );
    process.stdout.write(`| mode | nDCG@10 | Recall@100 | ms/query |\n|---|---|---|---|\n`);
  }
  const rows: Row[] = [];
  for (const mode of modes) {
    let ndcg = 0;
    let recall = 0;
    const t0 = performance.now();
    for (const query of collection.queries) {
      const hits = await retriever.search({
        text: query.text,
        limit: 100,
        components: mode.components,
      });
      const ranking = hits.map((hit) => hit.id);
      const judged = collection.qrels.get(query.id) ?? new Map<string, number>();
      ndcg += ndcgAt(ranking, judged, 10);
      recall += recallAt(ranking, judged, 100);
    }
    const count = collection.queries.length;
    const row = {
      mode: mode.name,
      ndcg: ndcg / count,
      recall: recall / count,
      msPerQuery: (performance.now() - t0) / count,
    };
    rows.push(row);
    if (verbose) {
      process.stdout.write(
        `| ${row.mode} | ${row.ndcg.toFixed(4)} | ${row.recall.toFixed(4)} | ${row.msPerQuery.toFixed(1)} |\n`,
      );
    }
  }
  return {
    collection: collection.name,
    embedder: retriever.embedderName,
    buildSeconds,
    longestPause,
    rows,
  };
};

/** Modes as rows, collections as columns: `nDCG@10 / Recall@100`, then the build time. */
const markdownTable = (results: readonly Result[]): string => {
  const header = `| | ${results.map((result) => result.collection).join(' | ')} |`;
  const rule = `| --- | ${results.map(() => '---').join(' | ')} |`;
  const modes = results[0]?.rows.map((row) => row.mode) ?? [];
  const lines = modes.map((mode) => {
    const cells = results.map((result) => {
      const row = result.rows.find((candidate) => candidate.mode === mode);
      return row ? `${row.ndcg.toFixed(4)} / ${row.recall.toFixed(3)}` : '–';
    });
    return `| ${mode} | ${cells.join(' | ')} |`;
  });
  const build = `| index build (${results[0]?.embedder ?? ''}) | ${results.map((result) => `${result.buildSeconds.toFixed(1)} s`).join(' | ')} |`;
  const pause = `| longest event-loop pause in the build | ${results.map((result) => `${result.longestPause.toFixed(2)} s`).join(' | ')} |`;
  return [header, rule, ...lines, build, pause].join('\n');
};

const args = process.argv.slice(2).filter((arg) => arg !== '--');
const option = (name: string): string | undefined => {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const [value] = args.splice(index, 2).slice(1);
  return value;
};
const flag = (name: string): boolean => {
  const index = args.indexOf(name);
  if (index >= 0) args.splice(index, 1);
  return index >= 0;
};
// JSON has no undefined: `null` turns an optional component off (`{"proximity":null}`).
const overrides = Object.fromEntries(
  Object.entries(JSON.parse(option('--settings') ?? '{}') as Record<string, unknown>).map(
    ([key, value]) => [key, value ?? undefined],
  ),
) as Partial<RetrievalSettings>;
const lsa = JSON.parse(option('--lsa') ?? '{}') as LsaOptions;
const picked = option('--modes')?.split(',');
const markdown = flag('--markdown');
const settings: RetrievalSettings = { ...DEFAULT_RETRIEVAL_SETTINGS, ...overrides };
const modes = picked ? MODES.filter((_, index) => picked.includes(String(index + 1))) : MODES;
if (args.length === 0) {
  process.stderr.write(
    'usage: npm run eval:search -- <collection dir> [...] [--settings JSON] [--lsa JSON] [--modes 1,2,...] [--markdown]\n',
  );
  process.exitCode = 2;
} else {
  if (Object.keys(overrides).length > 0 || Object.keys(lsa).length > 0) {
    process.stdout.write(`settings: ${JSON.stringify(settings)}; lsa: ${JSON.stringify(lsa)}\n`);
  }
  const results: Result[] = [];
  for (const dir of args) results.push(await run(dir, settings, lsa, modes, !markdown));
  if (markdown) {
    process.stdout.write(
      `nDCG@10 / Recall@100, ${Object.keys(overrides).length === 0 && Object.keys(lsa).length === 0 ? 'default' : 'overridden'} settings\n\n${markdownTable(results)}\n`,
    );
  }
}
