import { afterEach, describe, expect, it } from 'vitest';
import { inferLabel } from '../../../services/catalog/labels.js';
import { applyRedirect, createLinkResolver } from '../../../services/catalog/links.js';
import {
  compareMonikers,
  detectSite,
  latestVersions,
  locatePages,
} from '../../../services/catalog/site.js';
import { makeCorpus, type CorpusFolder } from './fixtures.js';

describe('site conventions', () => {
  let folder: CorpusFolder | undefined;
  afterEach(async () => {
    await folder?.cleanup();
    folder = undefined;
  });

  it('Mintlify: navigation, the default version and redirects from docs.json', async () => {
    const docsJson = {
      navigation: {
        tabs: [
          {
            tab: 'Docs',
            versions: [
              { version: 'Version 2026 (latest)', default: true, pages: ['spec/2026-07-28/a'] },
              { version: 'Draft', pages: [{ group: 'G', pages: ['spec/draft/a'] }] },
            ],
          },
        ],
      },
      redirects: [{ source: '/spec/latest/:slug*', destination: '/spec/2026-07-28/:slug*' }],
    };
    folder = await makeCorpus({ 'docs.json': JSON.stringify(docsJson) });
    const site = await detectSite(folder.dir, ['docs.json', 'spec/2026-07-28/a.mdx']);
    expect(site.generator).toBe('mintlify');
    expect(site.mdMeansMdx).toBe(true);
    expect([...site.declaredLatest]).toEqual(['2026-07-28']);
    expect(site.navigation.get('spec/draft/a')).toEqual({
      order: 1,
      title: undefined,
      groups: ['Docs', 'Draft', 'G'],
    });
    expect(site.redirects).toHaveLength(1);
    expect(site.notes).toEqual([expect.objectContaining({ file: 'docs.json', read: true })]);
  });

  it('MkDocs: docs_dir, site_url and nav titles, with Python tags in the YAML', async () => {
    folder = await makeCorpus({
      'mkdocs.yml': [
        'site_url: https://fastapi.example/',
        'markdown_extensions:',
        '  pymdownx.emoji:',
        '    emoji_index: !!python/name:material.extensions.emoji.twemoji',
        'nav:',
        '- FastAPI: index.md',
        '- Tutorial:',
        '  - tutorial/index.md',
        '  - Query: tutorial/query.md',
      ].join('\n'),
    });
    const site = await detectSite(folder.dir, ['mkdocs.yml', 'docs/index.md']);
    expect(site).toMatchObject({ generator: 'mkdocs', contentRoot: 'docs' });
    expect(site.baseUrl).toBe('https://fastapi.example/');
    expect(site.navigation.get('docs/tutorial/query')).toEqual({
      order: 2,
      title: 'Query',
      groups: ['Tutorial'],
    });
  });

  it('configuration written as code is named as not read', async () => {
    folder = await makeCorpus({});
    const site = await detectSite(folder.dir, ['.vitepress/config.ts', 'guide/index.md']);
    expect(site.generator).toBe('vitepress');
    expect(site.notes).toEqual([
      expect.objectContaining({ file: '.vitepress/config.ts', read: false }),
    ]);
  });

  it('version folders: siblings named like versions that share pages; the newest released is latest', async () => {
    folder = await makeCorpus({});
    const site = await detectSite(folder.dir, []);
    const files = [
      'specification/2025-11-25/client/sampling.mdx',
      'specification/2026-07-28/client/sampling.mdx',
      'specification/2026-07-28/server/index.mdx',
      'specification/draft/client/sampling.mdx',
      'blog/v2/announcing.md',
      'guide/index.md',
    ];
    const locations = locatePages(site, files);
    expect(locations.get('specification/2026-07-28/server/index.mdx')).toEqual({
      path: '/specification/2026-07-28/server',
      page: '/specification/server',
      version: '2026-07-28',
      versionGroup: 'specification',
    });
    // A lone folder named like a version is just a folder.
    expect(locations.get('blog/v2/announcing.md')).toMatchObject({
      path: '/blog/v2/announcing',
      version: undefined,
    });
    expect(locations.get('guide/index.md')).toMatchObject({ path: '/guide', page: '/guide' });
    expect(latestVersions(site, locations)).toEqual(new Map([['specification', '2026-07-28']]));
  });

  it('orders monikers newest released first', () => {
    expect(['draft', '2025-06-18', 'v2', '2026-07-28'].sort(compareMonikers)).toEqual([
      '2026-07-28',
      '2025-06-18',
      'v2',
      'draft',
    ]);
    expect(['1.x', '2.0.0-beta', '1.10', '1.9'].sort(compareMonikers)).toEqual([
      '1.x',
      '1.10',
      '1.9',
      '2.0.0-beta',
    ]);
  });

  it('labels from page types and folders, else Doc', () => {
    expect(inferLabel('docs/tutorial/first-steps.md', {})).toMatchObject({ label: 'Article' });
    expect(inferLabel('adr/0001-use-postgres.md', {})).toMatchObject({ label: 'ADR' });
    expect(inferLabel('articles/x.md', { 'ms.topic': 'reference' })).toMatchObject({
      label: 'Doc',
      reason: 'page type',
    });
    expect(inferLabel('guide/ssr.md', {})).toEqual({ label: 'Doc', reason: 'default', from: '' });
  });
});

describe('links', () => {
  const resolver = createLinkResolver({
    pages: [
      { uid: 's/guide', file: 'guide/index.md', path: '/guide', anchors: ['overview'] },
      { uid: 's/guide/ssr', file: 'guide/ssr.md', path: '/guide/ssr', anchors: ['_meta'] },
      {
        uid: 's/spec/2026/basic',
        file: 'spec/2026/basic/index.mdx',
        path: '/spec/2026/basic',
        anchors: [],
      },
    ],
    files: ['guide/index.md', 'guide/ssr.md', 'images/a.png', 'spec/2026/basic/index.mdx'],
    uids: new Set(['s/guide', 's/guide/ssr', 's/spec/2026/basic', 'other.uid']),
    baseUrl: 'https://docs.example.com/',
    contentRoot: '',
    latest: new Map([['spec', '2026']]),
    redirects: [{ source: '/old/:slug*', destination: '/guide/:slug*' }],
  });
  const from = { file: 'guide/index.md', path: '/guide' };

  it.each([
    ['./ssr.md#conditional-logic', 's/guide/ssr', 'conditional-logic'],
    ['ssr', 's/guide/ssr', undefined],
    ['/guide/ssr.html', 's/guide/ssr', undefined],
    ['/guide/', 's/guide', undefined],
    ['../guide/index.md#overview', 's/guide', 'overview'],
    ['https://docs.example.com/guide/ssr#_meta', 's/guide/ssr', '_meta'],
    ['/spec/latest/basic', 's/spec/2026/basic', undefined],
    ['/old/ssr', 's/guide/ssr', undefined],
    ['xref:other.uid', 'other.uid', undefined],
  ])('%s → %s', (href, uid, anchor) => {
    expect(resolver.resolve(href, from)).toEqual({ kind: 'node', uid, anchor });
  });

  it('tells outside links, assets, same-page anchors and missing pages apart', () => {
    expect(resolver.resolve('https://github.com/x', from)).toEqual({ kind: 'external' });
    expect(resolver.resolve('../images/a.png', from)).toEqual({ kind: 'asset' });
    expect(resolver.resolve('#overview', from)).toEqual({ kind: 'self' });
    expect(resolver.resolve('/guide/missing', from)).toMatchObject({
      kind: 'missing',
      target: '/guide/missing',
    });
  });

  it('matches anchors as the generators slug them', () => {
    expect(resolver.hasAnchor('s/guide/ssr', 'meta')).toBe(true);
    expect(resolver.hasAnchor('s/guide/ssr', 'nope')).toBe(false);
  });

  it('applies redirects with parameters', () => {
    expect(applyRedirect('/a/b/c', '/a/:slug*', '/x/:slug*')).toBe('/x/b/c');
    expect(applyRedirect('/a/b', '/a/:one', '/x/:one/y')).toBe('/x/b/y');
    expect(applyRedirect('/z', '/a/:slug*', '/x')).toBeUndefined();
  });
});
