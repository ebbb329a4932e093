import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../../services/catalog/corpus.js';
import { readDocusaurusConfig } from '../../../services/catalog/docusaurus-config.js';
import {
  blogRoute,
  docRoute,
  docsLayout,
  locateDocusaurusPage,
  type DocusaurusLayout,
} from '../../../services/catalog/site-docusaurus.js';
import { DOCUSAURUS_SITE } from './docusaurus-site.js';
import { makeCorpus, md, type CorpusFolder } from './fixtures.js';

const PRETTIER_CONFIG = new URL(
  '../../fixtures/docs-sites/prettier/website/docusaurus.config.js',
  import.meta.url,
);

/** The shape of Docusaurus's own website/docusaurus.config.ts, trimmed to what routing reads. */
const DOCUSAURUS_OWN_SHAPE = `
import type {Config} from '@docusaurus/types';
import type {Options as DocsOptions} from '@docusaurus/plugin-content-docs';
import versions from './versions.json';
const isDev = process.env.NODE_ENV === 'development';
const baseUrl = process.env.BASE_URL ?? '/';
function getLastVersion() { return versions.find((v) => !v.includes('rc')) ?? versions[0]; }
export default async function createConfigAsync() {
  return {
    title: 'Docusaurus',
    baseUrl,
    url: 'https://docusaurus.io',
    plugins: [
      ['./src/plugins/changelog/index.js', { routeBasePath: '/changelog' }],
      [
        'content-docs',
        {
          id: 'community',
          path: 'community',
          routeBasePath: 'community',
          editUrl: ({locale, docPath}) => \`https://example.com/\${docPath}\`,
        } satisfies DocsOptions,
      ],
      '@docusaurus/theme-mermaid',
    ],
    presets: [
      [
        'classic',
        {
          docs: {
            // routeBasePath: '/',
            path: 'docs',
            lastVersion: isDev ? 'current' : getLastVersion(),
            versions: { current: { label: \`\${'Canary'} 🚧\` } },
            replace: { from: /^\\/docs\\/next/g.source, to: '/docs' },
          },
          blog: { path: 'blog', postsPerPage: 5 } satisfies BlogOptions,
        } satisfies Preset.Options,
      ],
    ],
  } satisfies Config;
}
`;

const layoutOf = (lastVersion?: string): DocusaurusLayout => ({
  siteDir: 'website',
  baseUrl: 'https://example.com/',
  docs: [
    docsLayout(
      'website',
      {
        id: 'default',
        path: '../docs',
        routeBasePath: 'docs',
        lastVersion,
        versions: new Map([['1.0', { path: 'legacy' }]]),
        onlyIncludeVersions: undefined,
      },
      ['2.0', '1.0'],
    ),
  ],
  blogs: [{ dir: 'website/blog', routeBasePath: 'blog' }],
});

describe('Docusaurus configuration read statically', () => {
  it('given prettier’s real config, then docs in ../docs, the blog, and the computed url noted', async () => {
    const config = readDocusaurusConfig(await readFile(PRETTIER_CONFIG, 'utf8'));
    expect(config?.docs).toHaveLength(1);
    expect(config?.docs[0]).toMatchObject({
      id: 'default',
      path: '../docs',
      routeBasePath: 'docs',
      lastVersion: undefined,
    });
    expect([...(config?.docs[0]?.versions.keys() ?? [])]).toEqual(['current', 'stable']);
    expect(config?.blogs).toEqual([{ id: 'default', path: 'blog', routeBasePath: 'blog' }]);
    expect(config?.baseUrl).toBe('/');
    expect(config?.url).toBeUndefined();
    expect(config?.computed.join('\n')).toMatch(/^url \(packageJson/m);
    expect(config?.computed.join('\n')).toMatch(/lastVersion/);
  });

  it('given Docusaurus’s own shape, then the returned config, its env fallback and its plugin instances', () => {
    const config = readDocusaurusConfig(DOCUSAURUS_OWN_SHAPE);
    expect(config?.url).toBe('https://docusaurus.io');
    expect(config?.baseUrl).toBe('/');
    expect(config?.docs.map((d) => [d.id, d.path, d.routeBasePath])).toEqual([
      ['default', 'docs', 'docs'],
      ['community', 'community', 'community'],
    ]);
    expect(config?.blogs.map((b) => [b.path, b.routeBasePath])).toEqual([['blog', 'blog']]);
    expect(config?.computed.some((c) => c.includes('lastVersion'))).toBe(true);
  });

  it('given routeBasePath "/", a versions path and lastVersion, then they are read', () => {
    const config = readDocusaurusConfig(`module.exports = {
      url: "https://docs.example.org", baseUrl: "/guide/",
      presets: [["@docusaurus/preset-classic", { docs: { routeBasePath: "/", lastVersion: "current",
        versions: { "1.x": { path: "v1", label: "One" } }, onlyIncludeVersions: ["current", "1.x"] },
        blog: false }]],
    };`);
    expect(config?.docs[0]).toMatchObject({ routeBasePath: '/', lastVersion: 'current' });
    expect(config?.docs[0]?.versions.get('1.x')).toEqual({ path: 'v1', label: 'One' });
    expect(config?.docs[0]?.onlyIncludeVersions).toEqual(['current', '1.x']);
    expect(config?.blogs).toEqual([]);
    expect(config?.computed).toEqual([]);
  });

  it('given text with no configuration object, then undefined rather than a throw', () => {
    expect(readDocusaurusConfig('export default createConfig(process.env);')).toBeUndefined();
    expect(readDocusaurusConfig('const x = {"unterminated: [1, 2')).toBeUndefined();
  });
});

describe('Docusaurus doc ids, slugs and routes', () => {
  it('strips number prefixes, applies front matter id and slug, and serves folder indexes', () => {
    expect(docRoute('01-guides/02-install.md', {})).toEqual({
      id: 'guides/install',
      slug: '/guides/install',
    });
    expect(docRoute('guides/setup.md', { id: 'getting-started' })).toEqual({
      id: 'guides/getting-started',
      slug: '/guides/getting-started',
    });
    expect(docRoute('guides/setup.md', { slug: '/start' }).slug).toBe('/start');
    expect(docRoute('guides/setup.md', { slug: 'begin' }).slug).toBe('/guides/begin');
    expect(docRoute('guides/index.md', {}).slug).toBe('/guides');
    expect(docRoute('guides/README.md', {}).slug).toBe('/guides');
    expect(docRoute('guides/Guides.mdx', {}).slug).toBe('/guides');
    expect(docRoute('index.md', { id: 'index' }).slug).toBe('/');
  });

  it('serves the last version at the route base, current at next, others at their path', () => {
    const layout = layoutOf();
    expect(locateDocusaurusPage(layout, 'website/versioned_docs/version-2.0/a.md')).toMatchObject({
      path: '/docs/a',
      page: '/docs/a',
      version: '2.0',
      versionGroup: 'docs',
    });
    expect(locateDocusaurusPage(layout, 'docs/a.md')).toMatchObject({
      path: '/docs/next/a',
      page: '/docs/a',
      version: 'next',
    });
    expect(locateDocusaurusPage(layout, 'website/versioned_docs/version-1.0/a.md')?.path).toBe(
      '/docs/legacy/a',
    );
    expect(locateDocusaurusPage(layoutOf('current'), 'docs/a.md')?.path).toBe('/docs/a');
    expect(locateDocusaurusPage(layout, 'website/src/pages/x.md')).toBeUndefined();
  });

  it('routes blog posts by their date, or their slug, never keeping the date in the name', () => {
    expect(blogRoute('2023-11-13-curious-ternaries.md', {})).toBe('/2023/11/13/curious-ternaries');
    expect(blogRoute('2024-01-02-release/index.md', {})).toBe('/2024/01/02/release');
    expect(blogRoute('2024-01-02-release.mdx', { slug: 'v3.2' })).toBe('/v3.2');
    expect(blogRoute('welcome.md', {})).toBe('/welcome');
    expect(locateDocusaurusPage(layoutOf(), 'website/blog/2023-11-13-a.md')?.path).toBe(
      '/blog/2023/11/13/a',
    );
  });
});

describe('a Docusaurus site whose configuration lives in website/', () => {
  let folder: CorpusFolder | undefined;
  afterEach(async () => {
    await folder?.cleanup();
    folder = undefined;
  });

  it('given the folder, when loaded, then one latest version per page, routes and edges by id and route', async () => {
    folder = await makeCorpus(DOCUSAURUS_SITE);
    const corpus = await loadCorpus(folder.dir, { source: 'fmt', checkSamples: false });
    expect(corpus.generator).toBe('docusaurus');
    expect(corpus.errors).toEqual([]);
    expect(corpus.warnings).toEqual([]);
    expect(corpus.baseUrl).toBe('https://formatter.example/');
    const byUid = new Map(corpus.nodes.map((n) => [n.uid, n]));
    const options = corpus.nodes.filter((n) => n.page === '/docs/options');
    expect(options.map((n) => [n.path, n.monikers])).toEqual([
      ['/docs/2.x/options', ['2.x']],
      ['/docs/next/options', ['next']],
      ['/docs/options', ['latest', 'stable']],
    ]);
    expect(
      corpus.nodes.filter((n) => n.monikers.includes('latest') && n.page === '/docs'),
    ).toHaveLength(1);
    const targets = (uid: string): string[] =>
      (byUid.get(uid)?.edges ?? []).map((e) => `${e.target}${e.anchor ? `#${e.anchor}` : ''}`);
    expect(targets('fmt/docs/next/rationale')).toEqual([
      'fmt/docs/next/options#print-width',
      'fmt/docs/next/command-line',
      'fmt/docs/next/guides/install',
    ]);
    expect(targets('fmt/docs/next')).toContain('fmt/docs/next/guides/install');
    expect(targets('fmt/docs/rationale')).toEqual([
      'fmt/docs/options',
      'fmt/blog/2023/11/13/curious-ternaries',
    ]);
    expect(targets('fmt/blog/2024/01/02/release')).toEqual(['fmt/docs/next/options#print-width']);
    expect(byUid.get('fmt/blog/2023/11/13/curious-ternaries')?.title).toBe('Curious ternaries');
    expect(byUid.get('fmt/blog/2024/01/02/release')?.title).toBe('Formatter 3.2');
    const notes = new Map(corpus.configuration.map((c) => [c.file, c]));
    expect(notes.get('website/docusaurus.config.js')?.read).toBe(true);
    expect(notes.get('website/docusaurus.config.js')?.reason).toMatch(/lastVersion/);
    expect(notes.get('website/blog/authors.yml')?.read).toBe(false);
  });

  it('given onlyIncludeVersions, then the left-out version’s files are not pages', async () => {
    folder = await makeCorpus({
      'docusaurus.config.ts': `export default { title: 'x', url: 'https://x.example', presets: [['classic', { docs: { onlyIncludeVersions: ['current'] } }]] };`,
      'versions.json': '["1.0"]',
      'docs/a.md': md({ title: 'A' }, 'Now.\n'),
      'versioned_docs/version-1.0/a.md': md({ title: 'A' }, 'Then.\n'),
    });
    const corpus = await loadCorpus(folder.dir, { source: 'x', checkSamples: false });
    expect(corpus.nodes.map((n) => [n.path, n.monikers])).toEqual([['/docs/a', ['latest']]]);
  });

  it('given the repository around the site (its README, changelog, test fixtures), then only the docs, the blog and src/pages are pages', async () => {
    folder = await makeCorpus({
      ...DOCUSAURUS_SITE,
      'README.md': md({}, '# Formatter\n\nThe repository README.\n'),
      'CHANGELOG.md': md({}, '# 3.2.0\n\nChanges.\n'),
      'tests/format/markdown/simple.md': md({}, '# A test input\n'),
      'website/src/pages/help.md': md({ title: 'Help' }, 'Ask on the forum.\n'),
    });
    const corpus = await loadCorpus(folder.dir, { source: 'fmt', checkSamples: false });
    const files = new Set(corpus.nodes.map((n) => n.sourcePath));
    expect(files.has('README.md')).toBe(false);
    expect(files.has('CHANGELOG.md')).toBe(false);
    expect(files.has('tests/format/markdown/simple.md')).toBe(false);
    expect(files.has('website/src/pages/help.md')).toBe(true);
    expect(files.has('docs/options.md')).toBe(true);
    expect(corpus.skipped.find((s) => s.file === 'README.md')?.reason).toMatch(
      /not part of the Docusaurus site/,
    );
  });
});
