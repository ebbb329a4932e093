import { md } from './fixtures.js';

/**
 * A small Docusaurus site laid out as many real repositories are (prettier's, Docusaurus's
 * own): the configuration in website/, the current docs in docs/ beside it (`path: '../docs'`),
 * released versions in website/versioned_docs/, a blog with dated file names.
 */
export const DOCUSAURUS_SITE: Record<string, string> = {
  'website/docusaurus.config.js': `// @ts-check
const config = {
  title: 'Formatter',
  url: 'https://formatter.example',
  baseUrl: '/',
  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          sidebarPath: './sidebars.json',
          path: '../docs',
          editUrl: ({ docPath }) => \`https://github.com/x/y/edit/main/docs/\${docPath}\`,
          lastVersion: process.env.PREVIEW === 'true' ? 'current' : undefined,
          versions: { current: { label: 'next' }, stable: { label: 'stable' } },
        },
        blog: { blogTitle: 'Formatter blog', postsPerPage: 10 },
      }),
    ],
  ],
};
export default config;
`,
  'website/versions.json': '["stable", "2.x"]\n',
  'website/sidebars.json': '{ "docs": { "About": ["index", "options"] } }\n',
  'docs/index.md': md(
    { id: 'index', title: 'What is Formatter?' },
    'Formatter reprints code. See the [options](options.md) and [installing](guides/install).\n',
  ),
  'docs/options.md': md(
    { id: 'options', title: 'Options' },
    'Next options.\n\n## Print Width\n\nThe line length, next edition.\n',
  ),
  'docs/rationale.md': md(
    { title: 'Rationale' },
    'Why: read [the options](options#print-width), the [CLI](/docs/next/command-line), [its usage](cli-usage) and [the guide](./01-guides/02-install.md).\n',
  ),
  'docs/cli.md': md({ id: 'cli-usage', title: 'CLI', slug: '/command-line' }, 'Run it.\n'),
  'docs/01-guides/02-install.md': md({ title: 'Install' }, 'Install it. [Back](../rationale).\n'),
  'website/versioned_docs/version-stable/index.md': md(
    { id: 'index', title: 'What is Formatter?' },
    'Formatter reprints code.\n',
  ),
  'website/versioned_docs/version-stable/options.md': md(
    { id: 'options', title: 'Options' },
    'Stable options.\n\n## Print Width\n\nThe line length.\n',
  ),
  'website/versioned_docs/version-stable/rationale.md': md(
    { title: 'Rationale' },
    'Why: the [options](options) and [the blog post](/blog/2023/11/13/curious-ternaries).\n',
  ),
  'website/versioned_docs/version-2.x/options.md': md(
    { id: 'options', title: 'Options' },
    'Old options.\n\n## Print Width\n\nThe old line length.\n',
  ),
  'website/blog/2023-11-13-curious-ternaries.md': md(
    { authors: 'someone' },
    'Ternaries got curious: see [print width](/docs/options#print-width).\n',
  ),
  'website/blog/2024-01-02-release/index.md': md(
    { authors: 'someone' },
    '# Formatter 3.2\n\nReleased. See [the next options](https://formatter.example/docs/next/options#print-width).\n',
  ),
  'website/blog/authors.yml': 'someone:\n  name: Someone\n',
};
