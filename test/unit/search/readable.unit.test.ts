import { describe, expect, it } from 'vitest';
import { analyze } from '../../../services/search/analyzer.js';
import { bestSection } from '../../../services/search/pages.js';
import {
  blockWindow,
  previewOf,
  readableText,
  readableUnits,
} from '../../../services/search/readable.js';

/**
 * Excerpts read as the page: prose plain, code exactly as written. Each case is Markdown from
 * real documentation pages (Python, C++, shell, .NET, npm) and what an excerpt must show of it.
 */
describe('readable text of Markdown', () => {
  const codeKept: readonly (readonly [string, string])[] = [
    ['snake_case identifiers', 'Use `get_request` with `as_of` to read a past state.'],
    ['dunder methods', 'Override `__init__` and `__repr__` in the subclass.'],
    ['asterisks', 'The product `a*b*c` is computed lazily.'],
    ['double-star parameters', 'Extra options go in `**kwargs`, positional ones in `*args`.'],
    ['a language name with #', 'Samples are in `C#` and `F#`.'],
    ['C++ scopes and templates', 'Return a `std::vector<int>` or a `std::map<K, V>`.'],
    ['arrows and members', 'Call `ptr->next` then `obj.method()` and `Foo::Bar#baz`.'],
    ['environment paths', 'The file lives at `$HOME/.config/tool/config.toml`.'],
    ['command-line options', 'Pass `--base-url https://example.com/` and `-o out/`.'],
    ['scoped packages and decorators', 'Install `@scope/pkg` and decorate with `@app.route`.'],
    ['entities stay as written in code', 'Escape it as `&lt;T&gt;` or `&amp;&amp;`.'],
    ['a span with backticks inside', 'The template is `` `${name}` `` in JavaScript.'],
  ];
  it.each(codeKept)(
    'given %s in a code span, when made readable, then the span is byte for byte the page’s',
    (_, markdown) => {
      expect(readableText(markdown)).toBe(markdown);
    },
  );

  const prose: readonly (readonly [string, string, string])[] = [
    [
      'intraword underscores',
      'Call foo_bar_baz() on my_module.MAX_SIZE.',
      'Call foo_bar_baz() on my_module.MAX_SIZE.',
    ],
    ['emphasis', 'This is **important** and _subtle_.', 'This is important and subtle.'],
    ['a link', 'See [the `as_of` option](./options.md#as_of).', 'See the `as_of` option.'],
    ['an image', 'Look: ![the get_request flow](flow.png)', 'Look: the get_request flow'],
    ['HTML tags', 'Press <kbd>Ctrl</kbd>+<kbd>C</kbd>.<br>Then stop.', 'Press Ctrl+C. Then stop.'],
    [
      'a generic type in prose',
      'It returns List<string> or Vec<T>.',
      'It returns List<string> or Vec<T>.',
    ],
    ['entities in prose', 'Use &lt;T&gt; &amp; friends.', 'Use <T> & friends.'],
    ['a line break', 'Call `get_request`\nwith `as_of`.', 'Call `get_request` with `as_of`.'],
    [
      'a DocFX code include',
      'Below:\n\n[!code-csharp[Main](../samples/Program.cs?name=Snippet)]\n\nDone.',
      'Below: [!code-csharp[Main](../samples/Program.cs?name=Snippet)] Done.',
    ],
    [
      'a DocFX include in code',
      'Write `[!code-csharp[Main](a.cs)]` alone.',
      'Write `[!code-csharp[Main](a.cs)]` alone.',
    ],
  ];
  it.each(prose)(
    'given %s, when made readable, then it reads as the page shows it',
    (_, markdown, expected) => {
      expect(readableText(markdown)).toBe(expected);
    },
  );

  it('given fenced and indented code blocks, when made readable, then each is a fenced block with its lines as written', () => {
    const markdown = [
      'Define it:',
      '',
      '```python',
      'def __init__(self, **kwargs):',
      "    self.as_of = kwargs['as_of']",
      '```',
      '',
      'or in a shell:',
      '',
      '    export PATH=$HOME/.local/bin:$PATH',
      '      ls -la ~/.config/*_backup',
    ].join('\n');
    expect(readableText(markdown)).toBe(
      [
        'Define it:',
        '```python',
        'def __init__(self, **kwargs):',
        "    self.as_of = kwargs['as_of']",
        '```',
        'or in a shell:',
        '```',
        'export PATH=$HOME/.local/bin:$PATH',
        '  ls -la ~/.config/*_backup',
        '```',
      ].join('\n'),
    );
  });

  it('given whitespace inside a code span, when made readable, then it collapses to what CommonMark shows and no more', () => {
    expect(readableText('Run `npm  run\nbuild` now.')).toBe('Run `npm  run build` now.');
  });
});

describe('cutting readable text', () => {
  it('given code spans with spaces, when split into units, then each span stays whole with its punctuation', () => {
    expect(readableUnits('Call `std::map<K, V>`, then `a b`.').map((u) => u.text)).toEqual([
      'Call',
      '`std::map<K, V>`,',
      'then',
      '`a b`.',
    ]);
  });

  it('given a long excerpt, when previewed, then it is cut between units, never inside a code span', () => {
    const text = `${'word '.repeat(55)}\`std::vector<std::pair<int, std::string>> items\` and more`;
    const preview = previewOf(text, 300);
    expect(preview.length).toBeLessThan(text.length);
    expect((preview.match(/`/g) ?? []).length % 2).toBe(0);
    expect(preview.endsWith(' …')).toBe(true);
  });

  it('given a code block longer than the room left, when previewed, then it is cut at a line end and its fence closed', () => {
    const block = [
      '```cpp',
      ...Array.from({ length: 40 }, (_, i) => `int value_${i} = ${i};`),
      '```',
    ];
    const preview = previewOf(`Intro.\n${block.join('\n')}`, 200);
    const lines = preview.split('\n');
    expect(lines[1]).toBe('```cpp');
    expect(lines.at(-2)).toBe('…');
    expect(lines.at(-1)).toBe('``` …');
    for (const line of lines.slice(2, -2)) expect(block).toContain(line);
  });

  it('given a point inside a fenced block, when widened to blocks, then the window starts and ends outside it', () => {
    const markdown = 'a\n\n```\nx\n\ny\n```\n\nb\n\nc';
    const inside = markdown.indexOf('y');
    const { start, end } = blockWindow(markdown, inside, inside + 1);
    expect(markdown.slice(start, end)).toBe('```\nx\n\ny\n```\n');
  });
});

describe('search excerpts keep code', () => {
  const weights = (query: string): Map<string, number> =>
    new Map(analyze(query).map((term) => [term, 1]));

  it('given a section naming `get_request` and `as_of`, when it is a hit’s best section, then its excerpt shows them as written', () => {
    const body =
      '# Requests\n\n## Past states\n\nCall `get_request` with `as_of` to read a request as it was; **kwargs** pass through.\n';
    const hit = bestSection(
      {
        title: 'Requests',
        body,
        sections: [
          {
            anchor: 'past-states',
            heading: 'Past states',
            level: 2,
            offset: body.indexOf('## Past'),
          },
        ],
      },
      weights('get_request as_of'),
      analyze,
    );
    expect(hit?.excerpt).toBe(
      'Past states Call `get_request` with `as_of` to read a request as it was; kwargs pass through.',
    );
  });

  it('given a long section whose query term is deep inside, when excerpted, then the excerpt starts near it and its code is intact', () => {
    const filler = Array.from(
      { length: 900 },
      (_, i) => `Paragraph ${i} says nothing_special here.\n`,
    ).join('\n');
    const body = `## Options\n\n${filler}\n\`\`\`python\nclient.get_request(uid, as_of=when)\n\`\`\`\n\nThe \`as_of\` timestamp is inclusive.\n`;
    expect(body.length).toBeGreaterThan(32_000);
    const hit = bestSection(
      {
        title: 'Options',
        body,
        sections: [{ anchor: 'options', heading: 'Options', level: 2, offset: 0 }],
      },
      weights('as_of timestamp'),
      analyze,
    );
    expect(hit?.excerpt.startsWith('… ')).toBe(true);
    expect(hit?.excerpt).toContain('```python\nclient.get_request(uid, as_of=when)\n```');
    expect(hit?.excerpt).toContain('The `as_of` timestamp is inclusive.');
    expect(hit?.excerpt).toContain('nothing_special');
  });
});
