import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NodeContent } from '../../../services/catalog/content.js';
import { loadCorpus, type LoadedCorpus } from '../../../services/catalog/corpus.js';

/**
 * The real documentation sites under test/fixtures/docs-sites, read as they are published:
 * given the folder, when it is loaded, then these nodes, edges, versions and reports.
 */
/** Reading a whole site is seconds of CPU; on a busy machine, more. */
const LOAD_TIMEOUT_MS = 120_000;

const site = (path: string): string =>
  fileURLToPath(new URL(`../../fixtures/docs-sites/${path}`, import.meta.url));

const byUid = (corpus: LoadedCorpus, uid: string): NodeContent => {
  const node = corpus.nodes.find((n) => n.uid === uid);
  if (!node) throw new Error(`no node ${uid}`);
  return node;
};

const pages = (corpus: LoadedCorpus): NodeContent[] =>
  corpus.nodes.filter((node) => node.label !== 'CodeSample');

describe('Mintlify: the MCP documentation', () => {
  let corpus: LoadedCorpus;
  beforeAll(async () => {
    corpus = await loadCorpus(site('mcp/docs'), { checkSamples: 'syntax' });
  }, LOAD_TIMEOUT_MS);

  it('ingests every page without conversion: no errors, the source named after the site', () => {
    expect(corpus.errors).toEqual([]);
    expect(corpus).toMatchObject({ source: 'mcp', generator: 'mintlify' });
    expect(pages(corpus)).toHaveLength(164);
    expect(corpus.configuration).toEqual([
      expect.objectContaining({ file: 'docs.json', read: true }),
    ]);
    expect(corpus.skipped.map((s) => s.file)).toEqual([
      'snippets/snippet-intro.mdx',
      'specification/2025-11-25/server/slash-command.png',
    ]);
  });

  it('makes version folders monikers, the default version latest, and pages across versions one page', () => {
    expect(corpus.versions).toEqual(['2026-07-28', '2025-11-25', 'draft']);
    expect(corpus.latest).toEqual(['2026-07-28']);
    const old = byUid(corpus, 'mcp/specification/2025-11-25/client/sampling');
    const latest = byUid(corpus, 'mcp/specification/2026-07-28/client/sampling');
    const draft = byUid(corpus, 'mcp/specification/draft/client/sampling');
    expect(old).toMatchObject({ page: '/specification/client/sampling', monikers: ['2025-11-25'] });
    expect(latest.monikers).toEqual(['2026-07-28', 'latest']);
    expect(draft).toMatchObject({ page: '/specification/client/sampling', monikers: ['draft'] });
    expect(latest).toMatchObject({
      title: 'Sampling',
      label: 'Doc',
      path: '/specification/2026-07-28/client/sampling',
    });
  });

  it('renders components to text, keeps their hrefs as xref edges, front matter keys as attributes', () => {
    const intro = byUid(corpus, 'mcp/docs/2026-07-28/getting-started/intro');
    expect(intro.body).not.toMatch(/<Card|<CardGroup|<Frame/);
    expect(intro.body).toContain('[**Build servers**](/docs/2026-07-28/develop/build-server)');
    expect(intro.edges.map((e) => e.target)).toEqual(
      expect.arrayContaining([
        'mcp/docs/2026-07-28/develop/build-server',
        'mcp/docs/2026-07-28/develop/build-client',
        'mcp/extensions/apps/overview',
      ]),
    );
    expect(intro.attributes).toMatchObject({ sidebarTitle: 'What is MCP?', navOrder: 0 });
    expect(intro.summary).toMatch(/^MCP \(Model Context Protocol\) is an open-source standard/);
  });

  it('resolves site paths with anchors to sections, and /latest/ through the site’s redirects', () => {
    const sampling = byUid(corpus, 'mcp/specification/2025-11-25/client/sampling');
    expect(sampling.edges).toContainEqual(
      expect.objectContaining({
        type: 'xref',
        target: 'mcp/specification/2025-11-25/basic/lifecycle',
        anchor: 'initialization',
      }),
    );
    const debugging = byUid(corpus, 'mcp/docs/2026-07-28/tools/debugging');
    expect(debugging.edges.map((e) => e.target)).toContain(
      'mcp/specification/2026-07-28/server/tools',
    );
    // Links to parts of the site left out of the fixture are warnings, not errors.
    expect(corpus.warnings.length).toBeGreaterThan(0);
    expect(corpus.warnings.every((w) => typeof w.fix === 'string')).toBe(true);
  });

  it('takes code blocks as samples of their section, never diagrams; @scope names are not links', () => {
    const samples = corpus.nodes.filter((n) => n.label === 'CodeSample');
    expect(samples.length).toBeGreaterThan(500);
    expect(
      samples.filter((s) => ['mermaid', 'plantuml'].includes(String(s.attributes.language))),
    ).toEqual([]);
    const withSection = samples.find((s) => s.attributes.section !== undefined);
    expect(withSection?.edges[0]).toMatchObject({
      type: 'exampleOf',
      anchor: withSection?.attributes.section,
    });
    const about = byUid(corpus, 'mcp/registry/about');
    expect(about.edges.every((edge) => !edge.target.includes('acme'))).toBe(true);
    expect(corpus.dangling.every((d) => !d.target.startsWith('@'))).toBe(true);
  });
});

describe('VitePress: the Vite documentation', () => {
  let corpus: LoadedCorpus;
  beforeAll(async () => {
    corpus = await loadCorpus(site('vite/docs'), { checkSamples: 'syntax' });
  }, LOAD_TIMEOUT_MS);

  it('ingests every page; names the TypeScript configuration as not read', () => {
    expect(corpus.errors).toEqual([]);
    expect(corpus).toMatchObject({ source: 'vite', generator: 'vitepress' });
    expect(pages(corpus)).toHaveLength(57);
    expect(corpus.configuration).toContainEqual(
      expect.objectContaining({ file: '.vitepress/config.ts', read: false }),
    );
    expect(corpus.skipped.map((s) => s.file)).toEqual(
      expect.arrayContaining(['_data/team.js', 'package.json']),
    );
  });

  it('titles from the first heading, blog posts as articles, .md links to sections', () => {
    const env = byUid(corpus, 'vite/guide/env-and-mode');
    expect(env).toMatchObject({
      title: 'Env Variables and Modes',
      label: 'Doc',
      path: '/guide/env-and-mode',
    });
    expect(env.edges).toContainEqual(
      expect.objectContaining({ target: 'vite/config/shared-options', anchor: 'base' }),
    );
    expect(byUid(corpus, 'vite/blog/announcing-vite8')).toMatchObject({ label: 'Article' });
    expect(byUid(corpus, 'vite/guide').title).toBe('Getting Started');
    expect(env.body).not.toMatch(/^:::/m);
  });
});

describe('MkDocs: the FastAPI documentation', () => {
  let corpus: LoadedCorpus;
  beforeAll(async () => {
    corpus = await loadCorpus(site('fastapi/docs/en'), { checkSamples: 'syntax' });
  }, LOAD_TIMEOUT_MS);

  it('reads pages under docs_dir with their site paths; mkdocs.yml is read', () => {
    expect(corpus.errors).toEqual([]);
    expect(corpus).toMatchObject({ source: 'fastapi', generator: 'mkdocs' });
    expect(corpus.configuration).toEqual([
      expect.objectContaining({ file: 'mkdocs.yml', read: true }),
    ]);
    const query = byUid(corpus, 'fastapi/tutorial/query-params');
    expect(query).toMatchObject({
      title: 'Query Parameters',
      label: 'Article',
      path: '/tutorial/query-params',
    });
    expect(query.sections?.map((s) => s.anchor)).toContain('optional-parameters');
    expect(query.body).toContain('**Tip**');
    expect(query.edges).toContainEqual(
      expect.objectContaining({
        target: 'fastapi/tutorial/path-params',
        anchor: 'predefined-values',
      }),
    );
  });

  it('reports includes of files outside the folder as warnings with their fix', () => {
    const includes = corpus.warnings.filter((w) => w.field.startsWith('include'));
    expect(includes.length).toBeGreaterThan(100);
    expect(includes[0]).toMatchObject({
      fix: expect.stringContaining('ingest the folder') as string,
    });
  });
});
