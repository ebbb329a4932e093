import { describe, expect, it } from 'vitest';
import { rewriteDialects } from '../../../services/catalog/dialects.js';
import { parseFenceInfo, parsePage, splitFrontMatter } from '../../../services/catalog/page.js';

describe('a page read as its site shows it', () => {
  it('reads front matter and the body after it; a page may have none', () => {
    expect(splitFrontMatter('---\nuid: a.b\ntitle: T\n---\n# Body\n')).toEqual({
      data: { uid: 'a.b', title: 'T' },
      body: '# Body\n',
    });
    expect(splitFrontMatter('# no front matter')).toBeUndefined();
  });

  it('finds links, xrefs and @mentions outside code, in the order they appear', () => {
    const page = parsePage(
      [
        'See <xref:a.one?view=2025-10> and @b.two, then [c](../c/three.md#part) and [d](/d/).',
        'Mail ana@example.com; install `@scope/pkg` or @scope/pkg.',
        '```ts',
        "import x from '@d.four';",
        '```',
        '[ref]: https://example.com/ref',
        'A [reference][ref].',
      ].join('\n'),
      { mdx: false },
    );
    expect(page.links.map((link) => [link.href, link.mention, link.line])).toEqual([
      ['xref:a.one?view=2025-10', false, 1],
      ['@b.two', true, 1],
      ['../c/three.md#part', false, 1],
      ['/d/', false, 1],
      ['https://example.com/ref', false, 7],
    ]);
  });

  it('splits sections at headings with their anchors (explicit ids win, duplicates numbered)', () => {
    const page = parsePage(
      [
        '# Query Parameters { #query-parameters }',
        'Intro text that is long enough to be the summary of this page, really.',
        '## Defaults',
        'x',
        '## Defaults',
        '### `_meta` field {#meta}',
      ].join('\n'),
      { mdx: false },
    );
    expect(page.heading).toBe('Query Parameters');
    expect(page.sections.map(({ anchor, heading, level }) => [anchor, heading, level])).toEqual([
      ['query-parameters', 'Query Parameters', 1],
      ['defaults', 'Defaults', 2],
      ['defaults-1', 'Defaults', 2],
      ['meta', '_meta field', 3],
    ]);
    expect(page.body.slice(page.sections[1]!.offset)).toMatch(/^## Defaults\nx\n/);
    expect(page.firstParagraph).toBe(
      'Intro text that is long enough to be the summary of this page, really.',
    );
  });

  it('takes fenced code as samples with their section, but not diagrams, output or untagged text', () => {
    const page = parsePage(
      [
        '```mermaid',
        'graph TD; A-->B',
        '```',
        '## Install',
        '```bash',
        'npm i vite',
        '```',
        '```[.env]',
        'VITE_KEY=1',
        '```',
        '```ts twoslash title="vite.config.ts"',
        'export default {}',
        '```',
        '```plantuml',
        '@startuml',
        '```',
        ':::code language="javascript" source="../s.js" range="2-3":::',
      ].join('\n'),
      { mdx: false },
    );
    expect(page.blocks.map((b) => [b.ordinal, b.kind, b.language, b.code, b.section])).toEqual([
      [1, 'fenced', 'bash', 'npm i vite', 1],
      [2, 'fenced', 'typescript', 'export default {}', 1],
      [3, 'directive', 'javascript', '', 1],
    ]);
    expect(page.blocks[1]?.attributes).toEqual({ title: 'vite.config.ts' });
    expect(page.blocks[2]?.attributes).toEqual({
      language: 'javascript',
      source: '../s.js',
      range: '2-3',
    });
  });

  it('reads fence info strings of the generators', () => {
    expect(parseFenceInfo('js:line-numbers {1,3}')).toEqual({
      language: 'javascript',
      title: undefined,
    });
    expect(parseFenceInfo('json title="a.json"')).toEqual({ language: 'json', title: 'a.json' });
    expect(parseFenceInfo('[vite.config.js]')).toEqual({ language: '', title: 'vite.config.js' });
    expect(parseFenceInfo('{.python hl_lines="2"}')).toMatchObject({ language: 'python' });
  });
});

describe('the generators’ dialects, rendered to CommonMark', () => {
  const mdx = (text: string): string => rewriteDialects(text, { mdx: true }).text;

  it('MDX: drops ESM and expressions, renders components to their text and links, keeps lines', () => {
    const source = [
      "import Snippet from '/snippets/intro.mdx';",
      'export const meta = { a: 1 };',
      '',
      '<CardGroup cols={2}>',
      '  <Card title="Build servers" icon="server" href="/docs/develop/build-server">',
      '    Create MCP servers {/* a comment */}to expose your data',
      '  </Card>',
      '<Card',
      '  title="Build clients"',
      '  href="/docs/develop/build-client"',
      '>',
      '  Develop applications',
      '</Card>',
      '</CardGroup>',
      '<Note>Keep `<Tag>` in code and {"literal"} text.</Note>',
      '<Snippet />',
    ].join('\n');
    const out = mdx(source);
    expect(out.split('\n')).toHaveLength(source.split('\n').length);
    expect(out).not.toMatch(/import|export|<Card|CardGroup|comment/);
    expect(out).toContain('[**Build servers**](/docs/develop/build-server)');
    expect(out).toContain('[**Build clients**](/docs/develop/build-client)');
    expect(out).toContain('Create MCP servers to expose your data');
    expect(out).toContain('Keep `<Tag>` in code and literal text.');
  });

  it('MDX: a component’s indented children and fences read as MDX reads them', () => {
    const page = parsePage(
      [
        '<Tabs>',
        '  <Tab title="Python">',
        '    ```python',
        '    print("hi")',
        '    ```',
        '  </Tab>',
        '</Tabs>',
      ].join('\n'),
      { mdx: true },
    );
    expect(page.blocks.map((b) => [b.language, b.code])).toEqual([['python', 'print("hi")']]);
    expect(page.body).toContain('**Python**');
  });

  it('Markdown keeps its HTML but renders components (Vue in VitePress) and takes their links', () => {
    const page = parsePage(
      '<ScrimbaLink href="https://scrimba.com/x" title="Env">Watch a lesson</ScrimbaLink>\n\n<div class="x"><a href="./other.md">other</a></div>\n',
      { mdx: false },
    );
    expect(page.body).toContain('[**Env**](https://scrimba.com/x)Watch a lesson');
    expect(page.body).toContain('<div class="x">');
    expect(page.links.map((link) => link.href)).toEqual(['https://scrimba.com/x', './other.md']);
  });

  it('containers, admonitions, tabs and blocks become a title line and their text', () => {
    const out = rewriteDialects(
      [
        '::: tip Env parsing',
        'Values are strings.',
        ':::',
        ':::warning[Careful]',
        'Danger.',
        ':::',
        '!!! note "Heads up"',
        '    Indented body.',
        '',
        '    ```python',
        '    x = 1',
        '    ```',
        'After.',
        '=== "Python 3.10+"',
        '    Tab body.',
        '/// tip | Pro tip',
        'Block body.',
        '///',
        '{* ../../docs_src/query_params/tutorial001_py310.py hl[9] *}',
        '<<< @/snippets/a.js{2}',
        '[[toc]]',
      ].join('\n'),
      { mdx: false },
    );
    expect(out.text.split('\n')).toEqual([
      '**Env parsing**',
      'Values are strings.',
      '',
      '**Careful**',
      'Danger.',
      '',
      '**Heads up**',
      'Indented body.',
      '',
      '```python',
      'x = 1',
      '```',
      'After.',
      '**Python 3.10+**',
      'Tab body.',
      '**Pro tip**',
      'Block body.',
      '',
      '',
      '',
      '',
    ]);
    expect(out.includes.map(({ line, target, syntax }) => [line, target, syntax])).toEqual([
      [18, '../../docs_src/query_params/tutorial001_py310.py', '{* … *}'],
      [19, '@/snippets/a.js', '<<<'],
    ]);
  });
});
