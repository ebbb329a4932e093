import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, type ToolCallContext } from '../../../mcp-gateway/registry.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import { docsFetchTool } from '../../../mcp-gateway/tools/docs-fetch.js';
import { docsSearchTool } from '../../../mcp-gateway/tools/docs-search.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { createCatalogReadService } from '../../../services/catalog/read-service.js';
import { createLsaEmbedder } from '../../../services/search/lsa.js';
import { createSearchService, type SearchService } from '../../../services/search/service.js';
import { IGNORE_WRITES } from '../../support/read-your-writes.js';
import { silentLogger } from '../../support/catalog-read-model.js';
import { makeCorpus, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import { ingestRunMeta, openCatalogBed, type CatalogBed } from '../catalog/support.js';

/**
 * A page naming code (`get_request`, `as_of`, `**kwargs`, `std::vector<int>`), ingested as a
 * site is, then found and read as an agent does: the excerpt docs_search answers with and the
 * text docs_fetch returns show the code as the page writes it.
 */
const PAGE = [
  '---',
  'uid: guide.past-states',
  'title: Reading past states',
  '---',
  '# Reading past states',
  '',
  'Requests change over time; the store keeps every version of them.',
  '',
  '## Reading a request as it was',
  '',
  'Call `get_request` with `as_of` to read a request as it was at that time;',
  'options go in `**kwargs`, and foo_bar_baz() stays as written.',
  '',
  '```python',
  'def __init__(self, **kwargs):',
  "    self.as_of = kwargs['as_of']",
  '```',
  '',
  'The C++ client returns a `std::vector<int>` and reads `$HOME/.config`.',
  '',
].join('\n');

describe('excerpts and fetched pages keep code (postgres)', () => {
  let catalog: CatalogBed;
  let corpus: CorpusFolder;
  let search: SearchService;
  let context: ToolCallContext;

  beforeAll(async () => {
    catalog = await openCatalogBed('excerpts_code');
    corpus = await makeCorpus({ 'past-states.md': PAGE });
    const report = await ingestCorpus(catalog.bed.store, {
      dir: corpus.dir,
      source: 'guide',
      checkSamples: false,
      meta: ingestRunMeta('test:excerpts')(),
    });
    expect(report.errors).toEqual([]);
    await catalog.caughtUp(report.lastPosition ?? null);
    const db = catalog.bed.database.pool;
    search = createSearchService({
      db,
      changes: { onChange: () => () => undefined },
      embedder: createLsaEmbedder({ dimensions: 4, minDocumentFrequency: 1 }),
      logger: silentLogger,
    });
    await search.ready();
    context = {
      services: {
        search,
        catalog: createCatalogReadService({ db }),
        readYourWrites: IGNORE_WRITES,
      } as unknown as GatewayServices,
      caller: {
        actor: 'agent:test',
        grants: { products: '*', types: '*', propose: false, writeNetworks: false },
      },
      signal: new AbortController().signal,
      progress: () => Promise.resolve(),
      now: () => new Date('2026-01-05T09:00:00Z'),
      newId: () => 'id',
    };
  });
  afterAll(async () => {
    await search.close();
    await catalog.close();
    await corpus.cleanup();
  });

  it('given the page, when docs_search finds it by get_request as_of, then its excerpt shows the code spans and block as written', async () => {
    const result = (await runTool(docsSearchTool, { query: 'get_request as_of' }, context)) as {
      results: { uid: string; section: { anchor: string | null; excerpt: string } | null }[];
    };
    const hit = result.results[0];
    expect(hit?.uid).toBe('guide.past-states');
    expect(hit?.section?.anchor).toBe('reading-a-request-as-it-was');
    const excerpt = hit?.section?.excerpt ?? '';
    expect(excerpt).toContain('Call `get_request` with `as_of` to read a request as it was');
    expect(excerpt).toContain('options go in `**kwargs`, and foo_bar_baz() stays as written.');
    expect(excerpt).toContain(
      "```python\ndef __init__(self, **kwargs):\n    self.as_of = kwargs['as_of']\n```",
    );
    expect(excerpt).toContain('returns a `std::vector<int>` and reads `$HOME/.config`.');
    expect(excerpt).not.toMatch(/getrequest|asof/);
  });

  it('given the same search, when rendered as text for a model, then the preview keeps the identifiers too', async () => {
    const result = await runTool(docsSearchTool, { query: 'get_request as_of' }, context);
    const text = docsSearchTool.render(result);
    expect(text).toContain('Call `get_request` with `as_of` to read');
    expect(text).not.toMatch(/getrequest|asof/);
  });

  it('given the page, when docs_fetch reads it whole or by section, then its body keeps get_request and as_of as written', async () => {
    const whole = (await runTool(docsFetchTool, { uid: 'guide.past-states' }, context)) as {
      body: string;
      summary: string;
    };
    expect(whole.body).toContain('Call `get_request` with `as_of` to read a request');
    expect(whole.body).toContain("    self.as_of = kwargs['as_of']");
    const section = (await runTool(
      docsFetchTool,
      { uid: 'guide.past-states', section: 'reading-a-request-as-it-was' },
      context,
    )) as { body: string };
    expect(section.body).toBe(PAGE.slice(PAGE.indexOf('## Reading a request')).trimEnd());
  });
});
