import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, type ToolCallContext } from '../../../mcp-gateway/registry.js';
import { docsFetchTool } from '../../../mcp-gateway/tools/docs-fetch.js';
import { UNRESTRICTED } from '../../../services/access/grants.js';
import { ingestCorpus, type IngestReport } from '../../../services/catalog/ingest.js';
import { startSearch, type SearchBed } from '../../support/catalog-read-model.js';
import { makeCorpus, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import { catalogToolContext, ingestRunMeta, openCatalogBed, type CatalogBed } from './support.js';

/**
 * A DocFX folder as Learn repositories lay it out (docfx.json in a subfolder, snippets beside
 * the articles, `~/` paths): given it ingested, when an agent fetches the page or searches for
 * an API name that lives only in a snippet, then the code is in the section and a CodeSample.
 */
const FILES: Record<string, string> = {
  'docs/docfx.json': '{ "build": { "content": [{ "files": ["**/*.md"] }] } }\n',
  'docs/snippets/Program.cs': [
    'namespace Demo;',
    'class Program',
    '{',
    '    // <Main>',
    '    static void Main() => Telescope.PointAtAndromeda();',
    '    // </Main>',
    '}',
  ].join('\n'),
  'docs/includes/note.md': 'A shared note.\n',
  'docs/articles/start.md': [
    '---',
    'uid: dfx.start',
    'title: Getting started',
    '---',
    '# Getting started',
    '',
    '## Run it',
    '',
    'The entry point:',
    '',
    '[!code-csharp[Main](../snippets/Program.cs?name=Main)]',
    '',
    '[!INCLUDE [note](~/includes/note.md)]',
    '',
    '## Next steps',
    '',
    'Read on.',
  ].join('\n'),
};

describe('DocFX code references ingested (postgres)', () => {
  let catalog: CatalogBed;
  let corpus: CorpusFolder;
  let context: ToolCallContext;
  let search: SearchBed;
  let report: IngestReport;

  beforeAll(async () => {
    catalog = await openCatalogBed('docfx_code');
    corpus = await makeCorpus(FILES);
    report = await ingestCorpus(catalog.bed.store, {
      dir: corpus.dir,
      source: 'dfx',
      checkSamples: false,
      meta: ingestRunMeta('test:docfx-code')(),
    });
    await catalog.caughtUp(report.lastPosition ?? null);
    context = catalogToolContext(catalog.bed.database.pool);
    search = await startSearch({ database: catalog.bed.database, close: () => Promise.resolve() });
  });
  afterAll(async () => {
    await search.close();
    await catalog.close();
    await corpus.cleanup();
  });

  it('given the ingest, then no error and no warning: ~/ is the docfx.json folder', () => {
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('given the page, when its section is fetched, then the code is there as a fenced block', async () => {
    const section = await runTool(docsFetchTool, { uid: 'dfx.start', section: 'run-it' }, context);
    expect(section.body).toContain(
      '```csharp\nstatic void Main() => Telescope.PointAtAndromeda();\n```',
    );
    expect(section.body).not.toContain('[!code');
    expect(section.body).not.toContain('## Next steps');
  });

  it('given an API name only the snippet has, when searched, then the sample and the page answer', async () => {
    const samples = await search.search.codeSampleSearch(UNRESTRICTED, {
      query: 'Telescope PointAtAndromeda',
      includeUnchecked: true,
    });
    expect(samples[0]).toMatchObject({
      uid: 'dfx.start.sample-1',
      language: 'csharp',
      code: expect.stringContaining('Telescope.PointAtAndromeda()') as string,
      source: { uid: 'dfx.start' },
    });
    const pages = await search.search.search(UNRESTRICTED, { query: 'PointAtAndromeda' });
    expect(pages.map((hit) => hit.uid)).toContain('dfx.start');
    expect(pages.find((hit) => hit.uid === 'dfx.start')?.section?.anchor).toBe('run-it');
  });
});
