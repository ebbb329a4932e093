import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateSite } from '../../eval/docs-eval.js';

/**
 * The docs-site retrieval eval as a test (the quick subset CI runs: one site per convention
 * that needs the most reading of its generator's configuration — VitePress, DocFX / Learn and
 * Docusaurus; `npm run eval:docs` runs all of them): given a site and its judged questions,
 * when ingested and searched, then the targets hold.
 */
const questions = (site: string): string =>
  fileURLToPath(new URL(`../../eval/docs/${site}.questions.json`, import.meta.url));

describe('eval:docs on real documentation sites (postgres)', () => {
  it('given the Vite documentation, then at least 90 % of the questions are answered in the top 5, with 4 or more distinct pages there', async () => {
    const result = await evaluateSite(questions('vite'), 'eval_docs_ci');
    expect(result.questions).toBeGreaterThanOrEqual(30);
    expect(result.hitAt5).toBeGreaterThanOrEqual(0.9);
    expect(result.distinctPagesAt5).toBeGreaterThanOrEqual(4);
  }, 300_000);

  it.each(['maui', 'prettier'])(
    'given the %s site ingested from its repository root, then hit@5 of 90 percent or more, MRR@10 ≥ 0.75 and ≥ 4.5 distinct pages in the top 5',
    async (site) => {
      const result = await evaluateSite(questions(site), `eval_docs_ci_${site}`);
      expect(result.questions).toBeGreaterThanOrEqual(30);
      expect(result.hitAt5).toBeGreaterThanOrEqual(0.9);
      expect(result.mrr).toBeGreaterThanOrEqual(0.75);
      expect(result.distinctPagesAt5).toBeGreaterThanOrEqual(4.5);
    },
    300_000,
  );
});
