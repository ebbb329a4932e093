import { afterEach, describe, expect, it } from 'vitest';
import { createLinkResolver } from '../../../services/catalog/links.js';
import { detectSite, locatePages } from '../../../services/catalog/site.js';
import {
  docfxRouteFile,
  globToRegExp,
  readDocfxLayout,
} from '../../../services/catalog/site-docfx.js';
import { makeCorpus, type CorpusFolder } from './fixtures.js';

/** A docfx.json shaped like dotnet/docs-maui's (trimmed). */
const DOCFX = {
  build: {
    content: [
      {
        files: ['**/*.md', '**/*.yml'],
        exclude: ['**/obj/**', '**/includes/**', '_themes/**', 'README.md'],
        group: 'net',
        src: '.',
      },
      { files: ['**/*.md'], src: '../extra', dest: 'more' },
    ],
    dest: 'docs-maui-public',
    groups: { net: { dest: 'net-dest', moniker_range: '>=net-maui-8.0' } },
  },
};

describe('DocFX build layout', () => {
  let folder: CorpusFolder | undefined;
  afterEach(async () => {
    await folder?.cleanup();
    folder = undefined;
  });

  it.each([
    ['**/*.md', 'a.md', true],
    ['**/*.md', 'x/y/a.md', true],
    ['**/includes/**', 'android/includes/levels.md', true],
    ['**/includes/**', 'includes/levels.md', true],
    ['README.md', 'x/README.md', false],
    ['_themes/**', '_themes/a/b.md', true],
    ['*.md', 'x/a.md', false],
  ])('given the glob %s, when matched against %s, then %s', (glob, file, expected) => {
    expect(globToRegExp(glob).test(file)).toBe(expected);
  });

  it('given docfx.json under docs/, when a file is routed, then relative to its content src, under dest', () => {
    const { layout, problems } = readDocfxLayout(DOCFX, 'docs');
    expect(problems).toEqual([]);
    if (!layout) throw new Error('no layout');
    expect(docfxRouteFile(layout, 'docs/get-started/install.md')).toBe('get-started/install.md');
    expect(docfxRouteFile(layout, 'docs/android/includes/levels.md')).toBeUndefined();
    expect(docfxRouteFile(layout, 'docs/README.md')).toBeUndefined();
    expect(docfxRouteFile(layout, 'extra/faq.md')).toBe('more/faq.md');
    expect(docfxRouteFile(layout, 'README.md')).toBeUndefined();
    expect(layout.monikerRanges).toHaveLength(1);
  });

  it('given a docfx.json without build content, when read, then no layout and a reason', () => {
    expect(readDocfxLayout({ build: {} }, '')).toEqual({
      layout: undefined,
      problems: ['no build.content entry with files'],
    });
  });

  it('given a DocFX folder, when its pages are located, then routes; excluded files are partials', async () => {
    const files = [
      'README.md',
      'docs/docfx.json',
      'docs/index.md',
      'docs/get-started/index.md',
      'docs/get-started/install.md',
      'docs/android/includes/levels.md',
    ];
    folder = await makeCorpus({ 'docs/docfx.json': JSON.stringify(DOCFX) });
    const site = await detectSite(folder.dir, files);
    expect(site.generator).toBe('docfx');
    expect(site.docfxRoot).toBe('docs');
    expect(site.partial('docs/android/includes/levels.md')).toMatch(/includable/);
    expect(site.partial('README.md')).toMatch(/not built as a page/);
    expect(site.partial('docs/get-started/install.md')).toBeUndefined();
    const pages = ['docs/index.md', 'docs/get-started/index.md', 'docs/get-started/install.md'];
    const paths = [...locatePages(site, pages).values()].map((location) => location.path);
    expect(paths).toEqual(['/', '/get-started', '/get-started/install']);
  });

  it('given ~/ links, when resolved, then relative to the docfx.json folder, with their anchor', () => {
    const resolver = createLinkResolver({
      pages: [
        {
          uid: 'install',
          file: 'docs/get-started/install.md',
          path: '/get-started/install',
          anchors: ['windows'],
        },
        { uid: 'intro', file: 'docs/intro.md', path: '/intro', anchors: [] },
      ],
      files: ['docs/media/logo.png'],
      uids: new Set(['install', 'intro']),
      baseUrl: 'https://learn.microsoft.com/dotnet/maui/',
      contentRoot: '',
      docfxRoot: 'docs',
    });
    const from = { file: 'docs/deep/er/page.md', path: '/deep/er/page' };
    expect(resolver.resolve('~/get-started/install.md#windows', from)).toEqual({
      kind: 'node',
      uid: 'install',
      anchor: 'windows',
    });
    expect(resolver.resolve('~/media/logo.png', from)).toEqual({ kind: 'asset' });
    expect(resolver.resolve('/dotnet/maui/get-started/install', from)).toMatchObject({
      uid: 'install',
    });
    expect(
      resolver.resolve('https://learn.microsoft.com/dotnet/maui/intro?view=net-maui-9.0', from),
    ).toMatchObject({ uid: 'intro' });
    expect(resolver.resolve('~/nowhere.md', from)).toMatchObject({
      kind: 'missing',
      target: 'docs/nowhere.md',
    });
  });
});
