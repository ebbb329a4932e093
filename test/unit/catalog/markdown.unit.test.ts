import { describe, expect, it } from 'vitest';
import { extractLinks, scanBody, splitFrontMatter } from '../../../services/catalog/markdown.js';
import { parseXref } from '../../../services/catalog/read-service.js';

describe('Markdown scanning', () => {
  it('reads front matter and the body after it', () => {
    expect(splitFrontMatter('---\nuid: a.b\ntitle: T\n---\n# Body\n')).toEqual({
      data: { uid: 'a.b', title: 'T' },
      body: '# Body\n',
    });
    expect(splitFrontMatter('# no front matter')).toBeUndefined();
  });

  it('finds @uid, <xref:uid> and xref: links outside code, once each, in order', () => {
    const { prose } = scanBody(
      [
        'See <xref:a.one?view=2025-10> and @b.two, then [c](xref:c.three).',
        'Mail ana@example.com; install `@scope/pkg` or @scope/pkg; again @b.two.',
        '```ts',
        "import x from '@d.four';",
        '```',
      ].join('\n'),
    );
    expect(extractLinks(prose)).toEqual([
      { uid: 'a.one', moniker: '2025-10' },
      { uid: 'b.two' },
      { uid: 'c.three' },
    ]);
  });

  it('extracts fenced blocks and :::code directives with their ordinals, skipping plain text', () => {
    const { blocks } = scanBody(
      [
        '```text',
        'a diagram',
        '```',
        '```ts',
        'const a = 1;',
        '```',
        ':::code language="javascript" source="../s.js" range="2-3":::',
        '~~~bash',
        'npm start',
        '~~~',
      ].join('\n'),
    );
    expect(blocks.map((b) => [b.ordinal, b.kind, b.language, b.code])).toEqual([
      [1, 'fenced', 'typescript', 'const a = 1;'],
      [2, 'directive', 'javascript', ''],
      [3, 'fenced', 'bash', 'npm start'],
    ]);
    expect(blocks[1]?.attributes).toEqual({
      language: 'javascript',
      source: '../s.js',
      range: '2-3',
    });
  });
});

describe('xref forms', () => {
  it.each([
    ['@a.b', { uid: 'a.b' }],
    ['<xref:a.b>', { uid: 'a.b' }],
    ['<xref:a.b?view=2025-10>', { uid: 'a.b', moniker: '2025-10' }],
    ['xref:a.b?view=latest', { uid: 'a.b', moniker: 'latest' }],
    ['a.b', { uid: 'a.b' }],
  ])('parses %s', (xref, expected) => {
    expect(parseXref(xref)).toEqual(expected);
  });

  it('refuses what is not an xref', () => {
    expect(parseXref('<xref:>')).toBeUndefined();
    expect(parseXref('two words')).toBeUndefined();
  });
});
