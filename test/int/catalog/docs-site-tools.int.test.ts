import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runTool,
  type ToolCallContext,
  type ToolDefinition,
} from '../../../mcp-gateway/registry.js';
import { docsFetchTool } from '../../../mcp-gateway/tools/docs-fetch.js';
import { resolveXrefTool } from '../../../mcp-gateway/tools/resolve-xref.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { makeCorpus, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import {
  catalogToolContext,
  ingestRunMeta,
  openCatalogBed,
  toolFailure,
  type CatalogBed,
} from './support.js';

/**
 * The catalog tools on a real documentation site (the MCP docs: Mintlify, three versions of
 * the specification), ingested as it is with its public URL, beside a second source: given the
 * read model, when a tool is called as an agent would, with the links the docs write, then
 * the page, version and section they mean.
 */
const MCP = fileURLToPath(new URL('../../fixtures/docs-sites/mcp/docs', import.meta.url));
const SAMPLING = 'mcp/specification/2026-07-28/client/sampling';

describe('catalog tools on a real documentation site (postgres)', () => {
  let catalog: CatalogBed;
  let notes: CorpusFolder;
  let context: ToolCallContext;
  const meta = ingestRunMeta('test:docs-site-tools');

  const call = (tool: ToolDefinition, args: unknown): Promise<Record<string, unknown>> =>
    runTool(tool, args, context);
  const failure = (tool: ToolDefinition, args: unknown): Promise<CogitaveError> =>
    toolFailure(tool, args, context);

  beforeAll(async () => {
    catalog = await openCatalogBed('docs_site_tools');
    notes = await makeCorpus({ 'examples.md': '# Our examples\n\nHow we release.\n' });
    let last: string | null = null;
    for (const [dir, source, baseUrl] of [
      [MCP, 'mcp', 'https://modelcontextprotocol.io/'],
      [notes.dir, 'notes', undefined],
    ] as const) {
      const report = await ingestCorpus(catalog.bed.store, {
        dir,
        source,
        ...(baseUrl ? { baseUrl } : {}),
        checkSamples: false,
        meta: meta(),
      });
      expect(report.errors).toEqual([]);
      last = report.lastPosition ?? last;
    }
    await catalog.caughtUp(last);
    context = catalogToolContext(catalog.bed.database.pool);
  });
  afterAll(async () => {
    await catalog.close();
    await notes.cleanup();
  });

  it('given a site path with an anchor, when resolved, then that version of the page and its section', async () => {
    expect(
      await call(resolveXrefTool, {
        xref: '/specification/2025-11-25/client/sampling#tools-in-sampling',
      }),
    ).toEqual({
      uid: 'mcp/specification/2025-11-25/client/sampling',
      label: 'Doc',
      title: 'Sampling',
      uri: `cogitave://doc/${encodeURIComponent('mcp/specification/2025-11-25/client/sampling')}`,
      moniker: '2025-11-25',
      source: 'mcp',
      path: '/specification/2025-11-25/client/sampling',
      section: { anchor: 'tools-in-sampling', heading: 'Tools in Sampling' },
    });
  });

  it('given the page without a version, a /latest/ link or a file link, when resolved, then the newest released version; a moniker picks another', async () => {
    for (const xref of [
      '/specification/client/sampling',
      '/specification/latest/client/sampling',
      'specification/2026-07-28/client/sampling.mdx',
    ]) {
      expect(await call(resolveXrefTool, { xref })).toMatchObject({
        uid: SAMPLING,
        moniker: 'latest',
      });
    }
    expect(
      await call(resolveXrefTool, { xref: '/specification/client/sampling', moniker: 'draft' }),
    ).toMatchObject({ uid: 'mcp/specification/draft/client/sampling', moniker: 'draft' });
    expect(
      await call(resolveXrefTool, {
        xref: 'mcp/specification/2025-11-25/client/sampling',
        moniker: 'draft',
      }),
    ).toMatchObject({ uid: 'mcp/specification/draft/client/sampling' });
    const missing = await failure(resolveXrefTool, {
      xref: '/specification/client/sampling',
      moniker: 'v9',
    });
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('has no version for moniker "v9"');
    expect(missing.details.monikers).toEqual(
      expect.arrayContaining(['2026-07-28', '2025-11-25', 'draft', 'latest']),
    );
  });

  it('given a URL of the site, when resolved, then the page it shows; a URL of another host still finds a page by its path', async () => {
    expect(
      await call(resolveXrefTool, {
        xref: 'https://modelcontextprotocol.io/specification/2025-11-25/client/sampling/#capabilities',
      }),
    ).toMatchObject({
      uid: 'mcp/specification/2025-11-25/client/sampling',
      section: { anchor: 'capabilities', heading: 'Capabilities' },
    });
    expect(
      await call(resolveXrefTool, {
        xref: 'https://mirror.example/specification/2026-07-28/client/sampling',
      }),
    ).toMatchObject({ uid: SAMPLING });
    expect(
      await failure(resolveXrefTool, { xref: 'https://modelcontextprotocol.io/no/such/page' }),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('given a path two sources have, when resolved, then an error naming both uids; a mention that names no node is not found', async () => {
    const both = await failure(resolveXrefTool, { xref: '/examples' });
    expect(both.code).toBe('INVALID_ARGUMENT');
    expect(both.message).toContain('is a page of 2 sources');
    expect(both.message).toContain('notes/examples (notes)');
    expect(both.message).toContain('mcp/examples (mcp)');
    expect(await failure(resolveXrefTool, { xref: '@modelcontextprotocol/sdk' })).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await failure(resolveXrefTool, { xref: 'not a link' })).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('given a page and one of its anchors, when fetched, then that section only, its components as text; an unknown anchor lists the page’s', async () => {
    const uid = 'mcp/specification/2025-11-25/client/sampling';
    const page = await call(docsFetchTool, { uid });
    expect(page.section).toBeNull();
    expect(page.body).not.toMatch(/<(Warning|Note)\b/);
    const section = await call(docsFetchTool, { uid, section: 'capabilities' });
    expect(section.section).toEqual({ anchor: 'capabilities', heading: 'Capabilities' });
    expect(section.body).toMatch(/^## Capabilities\n/);
    expect(section.body).not.toContain('## Protocol Messages');
    expect((section.body as string).length).toBeLessThan((page.body as string).length / 2);
    expect(section.contentHash).toBe(page.contentHash);
    const nested = await call(docsFetchTool, { uid, section: '#protocol-messages' });
    expect(nested.body).toContain('### Creating Messages');
    const unknown = await failure(docsFetchTool, { uid, section: 'no-such-heading' });
    expect(unknown.code).toBe('NOT_FOUND');
    expect(unknown.message).toContain('has no section "no-such-heading"; its sections: ');
    expect(unknown.details.sections).toEqual(expect.arrayContaining(['capabilities']));
  });
});
