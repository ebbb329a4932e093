import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool, type ToolCallContext } from '../../../mcp-gateway/registry.js';
import { resolveXrefTool } from '../../../mcp-gateway/tools/resolve-xref.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { DOCUSAURUS_SITE } from '../../unit/catalog/docusaurus-site.js';
import { makeCorpus, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import { catalogToolContext, ingestRunMeta, openCatalogBed, type CatalogBed } from './support.js';

/**
 * A Docusaurus site with its configuration in website/ (docs in ../docs, versioned docs, a dated
 * blog), ingested as it is: given the read model, when its public URLs are resolved, then the
 * version and section each URL shows on the site.
 */
describe('a Docusaurus site with its configuration in website/ (postgres)', () => {
  let catalog: CatalogBed;
  let folder: CorpusFolder;
  let context: ToolCallContext;
  const meta = ingestRunMeta('test:docusaurus-site');
  const resolve = (xref: string, moniker?: string): Promise<Record<string, unknown>> =>
    runTool(resolveXrefTool, moniker === undefined ? { xref } : { xref, moniker }, context);

  beforeAll(async () => {
    catalog = await openCatalogBed('docusaurus_site');
    folder = await makeCorpus(DOCUSAURUS_SITE);
    const report = await ingestCorpus(catalog.bed.store, {
      dir: folder.dir,
      source: 'fmt',
      checkSamples: false,
      meta: meta(),
    });
    expect(report.errors).toEqual([]);
    await catalog.caughtUp(report.lastPosition ?? null);
    context = catalogToolContext(catalog.bed.database.pool);
  });
  afterAll(async () => {
    await catalog.close();
    await folder.cleanup();
  });

  it('given the public URL of a doc, when resolved, then the last released version', async () => {
    expect(await resolve('https://formatter.example/docs/options')).toMatchObject({
      uid: 'fmt/docs/options',
      moniker: 'latest',
      path: '/docs/options',
    });
    expect(await resolve('https://formatter.example/docs')).toMatchObject({ uid: 'fmt/docs' });
  });

  it('given a versioned route with an anchor, when resolved, then that version and its section', async () => {
    expect(await resolve('https://formatter.example/docs/next/options#print-width')).toMatchObject({
      uid: 'fmt/docs/next/options',
      section: { anchor: 'print-width', heading: 'Print Width' },
    });
    expect(await resolve('/docs/2.x/options#print-width')).toMatchObject({
      uid: 'fmt/docs/2.x/options',
      moniker: '2.x',
      section: { anchor: 'print-width' },
    });
    expect(await resolve('/docs/options', 'next')).toMatchObject({ uid: 'fmt/docs/next/options' });
  });

  it('given a slug route and a dated blog URL, when resolved, then the doc and the post', async () => {
    expect(await resolve('https://formatter.example/docs/next/command-line')).toMatchObject({
      uid: 'fmt/docs/next/command-line',
      title: 'CLI',
    });
    expect(
      await resolve('https://formatter.example/blog/2023/11/13/curious-ternaries'),
    ).toMatchObject({ uid: 'fmt/blog/2023/11/13/curious-ternaries', title: 'Curious ternaries' });
  });
});
