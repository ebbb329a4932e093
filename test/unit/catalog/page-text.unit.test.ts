import { describe, expect, it } from 'vitest';
import { parsePage } from '../../../services/catalog/page.js';

/**
 * The text a page's summary and section headings are made of keeps code as the page writes it:
 * the code spans' characters, never emphasis-stripped, and words on two lines stay two words.
 */
describe('summaries and headings keep code', () => {
  const summaries: readonly (readonly [string, string, string])[] = [
    [
      'snake_case across a line break',
      'Call `get_request`\nwith `as_of` to read a request as it was at a time.',
      'Call get_request with as_of to read a request as it was at a time.',
    ],
    [
      'dunders, stars and scopes',
      'Override `__init__`, pass `**kwargs` and return a `std::vector<int>` from it.',
      'Override __init__, pass **kwargs and return a std::vector<int> from it.',
    ],
    [
      'intraword underscores outside code',
      'The helper foo_bar_baz() reads `$HOME/.config` and `--base-url` for `@scope/pkg`.',
      'The helper foo_bar_baz() reads $HOME/.config and --base-url for @scope/pkg.',
    ],
    [
      'a hard line break',
      'Samples are written in `C#`  \nand in `F#`, both compiled on every change.',
      'Samples are written in C# and in F#, both compiled on every change.',
    ],
  ];
  it.each(summaries)(
    'given %s in the first paragraph, then the summary keeps it',
    (_, text, summary) => {
      expect(parsePage(`# Title\n\n${text}\n`, { mdx: false }).firstParagraph).toBe(summary);
    },
  );

  it('given a long first paragraph without a sentence end, when cut, then at a space, not inside an identifier', () => {
    const text = `${'word '.repeat(58)}configure_the_request_timeout_in_milliseconds and more words.`;
    const summary = parsePage(`${text}\n`, { mdx: false }).firstParagraph;
    expect(summary.endsWith('word…')).toBe(true);
    expect(summary).not.toContain('configure');
  });

  it('given code in headings, then the section headings keep it', () => {
    const page = parsePage('## The `get_request` call\n\nx\n\n## `a*b*c` and `**kwargs`\n', {
      mdx: false,
    });
    expect(page.sections.map((section) => section.heading)).toEqual([
      'The get_request call',
      'a*b*c and **kwargs',
    ]);
  });
});
