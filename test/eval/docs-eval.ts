/**
 * `npm run eval:docs [-- <questions.json> ...] [--json]`: retrieval on real documentation
 * sites. Each site (test/fixtures/docs-sites) is ingested as `cogitave ingest` does it into a
 * throwaway Postgres database, the catalog projection builds the read model, and the search
 * service answers each question of test/eval/docs/<site>.questions.json. Reports per site:
 * hit@5 (an answer page among the first five hits), MRR over the first ten, and the distinct
 * pages among the first five. Needs TEST_DATABASE_URL's server (default 127.0.0.1:5432).
 * `--restricted` asks as a caller granted every catalog type by name: the same documents, on
 * the restricted path (statistics of the granted partitions, no corpus-fitted vectors).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { UNRESTRICTED, type ReadScope } from '../../services/access/grants.js';
import { NODE_LABELS } from '../../services/catalog/vocabulary.js';
import { ingestCorpus } from '../../services/catalog/ingest.js';
import { createLsaEmbedder } from '../../services/search/lsa.js';
import { createLogger } from '../../services/runtime/logger.js';
import { createSearchService } from '../../services/search/service.js';
import { openCatalogBed } from '../int/catalog/support.js';

interface Question {
  readonly id: string;
  readonly question: string;
  readonly answers: readonly string[];
}

interface QuestionFile {
  readonly site: string;
  readonly generator: string;
  readonly root: string;
  readonly questions: readonly Question[];
}

export interface SiteResult {
  readonly site: string;
  readonly generator: string;
  readonly questions: number;
  readonly hitAt5: number;
  readonly mrr: number;
  readonly distinctPagesAt5: number;
  readonly misses: readonly { id: string; question: string; top: readonly string[] }[];
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_FILES = ['mcp', 'vite', 'fastapi', 'maui', 'prettier'].map((site) =>
  fileURLToPath(new URL(`./docs/${site}.questions.json`, import.meta.url)),
);

/**
 * The site's root folder: the one ingest is pointed at (mkdocs sites hold a docs_dir inside; a
 * DocFX site is its repository root, '' here, where ingest finds docs/docfx.json; the Docusaurus
 * site too, with its configuration in website/).
 */
const siteFolders: Readonly<Record<string, string>> = {
  mcp: 'docs',
  vite: 'docs',
  fastapi: 'docs/en',
  maui: '',
  prettier: '',
};

const pageOf = (hit: { page: string | null; uid: string }): string =>
  (hit.page ?? hit.uid).replace(/^\//, '');

/** Every catalog type granted by name: sees what UNRESTRICTED sees, as a restricted caller. */
const EVERY_CATALOG_TYPE: ReadScope = {
  types: NODE_LABELS.filter((spec) => spec.source === 'catalog').map((spec) => spec.resourceType),
  products: '*',
};

export const evaluateSite = async (
  file: string,
  label: string,
  scope: ReadScope = UNRESTRICTED,
): Promise<SiteResult> => {
  const spec = JSON.parse(await readFile(file, 'utf8')) as QuestionFile;
  const folder = `${repoRoot}${spec.root}/${siteFolders[spec.site] ?? ''}`.replace(/\/$/, '');
  const catalog = await openCatalogBed(label);
  try {
    const report = await ingestCorpus(catalog.bed.store, {
      dir: folder,
      source: spec.site,
      checkSamples: false,
      meta: { commandId: randomUUID(), actor: 'eval:docs', at: new Date().toISOString() },
    });
    if (report.errors.length > 0) {
      const first = report.errors.slice(0, 3).map((issue) => `${issue.file}: ${issue.reason}`);
      throw new Error(`${spec.site}: ${report.errors.length} ingest errors (${first.join('; ')})`);
    }
    await catalog.caughtUp(report.lastPosition);
    const search = createSearchService({
      db: catalog.bed.database.pool,
      changes: { onChange: () => () => undefined },
      embedder: createLsaEmbedder(),
      logger: createLogger('silent'),
    });
    try {
      await search.ready();
      let hits5 = 0;
      let reciprocal = 0;
      let distinct = 0;
      const misses: SiteResult['misses'][number][] = [];
      for (const question of spec.questions) {
        const hits = await search.search(scope, { query: question.question, limit: 10 });
        const pages = hits.map(pageOf);
        const rank = pages.findIndex((page) => question.answers.includes(page));
        if (rank !== -1 && rank < 5) hits5 += 1;
        else misses.push({ id: question.id, question: question.question, top: pages.slice(0, 5) });
        if (rank !== -1) reciprocal += 1 / (rank + 1);
        distinct += new Set(pages.slice(0, 5)).size;
      }
      const n = spec.questions.length;
      return {
        site: spec.site,
        generator: spec.generator,
        questions: n,
        hitAt5: hits5 / n,
        mrr: reciprocal / n,
        distinctPagesAt5: distinct / n,
        misses,
      };
    } finally {
      await search.close();
    }
  } finally {
    await catalog.close();
  }
};

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const files = args.filter((arg) => !arg.startsWith('--'));
  const scope = args.includes('--restricted') ? EVERY_CATALOG_TYPE : UNRESTRICTED;
  const results: SiteResult[] = [];
  const failures: string[] = [];
  for (const [index, file] of (files.length > 0 ? files : DEFAULT_FILES).entries()) {
    // One site that does not ingest must not hide the figures of the others.
    try {
      results.push(await evaluateSite(file, `eval_docs_${index}`, scope));
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  for (const failure of failures) process.stderr.write(`failed ${failure}\n`);
  if (failures.length > 0) process.exitCode = 1;
  if (json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    '| site | generator | questions | hit@5 | MRR@10 | distinct pages in top 5 |\n',
  );
  process.stdout.write(
    '| ---- | --------- | --------: | ----: | -----: | ----------------------: |\n',
  );
  for (const r of results) {
    process.stdout.write(
      `| ${r.site} | ${r.generator} | ${r.questions} | ${(r.hitAt5 * 100).toFixed(1)} % | ${r.mrr.toFixed(3)} | ${r.distinctPagesAt5.toFixed(2)} |\n`,
    );
  }
  for (const r of results) {
    for (const miss of r.misses) {
      process.stdout.write(
        `miss ${r.site} ${miss.id}: ${miss.question} → ${miss.top.join(', ')}\n`,
      );
    }
  }
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
