import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateSite } from '../../eval/docs-eval.js';

/**
 * The docs-site retrieval eval as a test (the quick subset CI runs: one real site; `npm run
 * eval:docs` runs all of them): given a site and its judged questions, when ingested and
 * searched, then the targets hold.
 */
describe('eval:docs on the Vite documentation (postgres)', () => {
  it('answers at least 90 % of the questions in the top 5, with 4 or more distinct pages there', async () => {
    const result = await evaluateSite(
      fileURLToPath(new URL('../../eval/docs/vite.questions.json', import.meta.url)),
      'eval_docs_ci',
    );
    expect(result.questions).toBeGreaterThanOrEqual(30);
    expect(result.hitAt5).toBeGreaterThanOrEqual(0.9);
    expect(result.distinctPagesAt5).toBeGreaterThanOrEqual(4);
  }, 300_000);
});
