import { describe, expect, it } from 'vitest';
import { oneLine } from '../../../projections/one-line.js';

/** Titles and history summaries: one tidy line, cut without breaking a character. */
describe('oneLine', () => {
  it('given runs of whitespace and untrimmed ends, then one space between words and none at the ends', () => {
    expect(oneLine('  a \t b\n\nc  ', 20)).toBe('a b c');
    expect(oneLine('already tidy', 20)).toBe('already tidy');
    expect(oneLine('\u00a0nbsp\u2028line ', 20)).toBe('nbsp line');
  });

  it('given a text longer than the limit, then it is cut to the limit with an ellipsis', () => {
    const cut = oneLine('x'.repeat(50), 10);
    expect(cut).toBe(`${'x'.repeat(9)}…`);
    expect(cut).toHaveLength(10);
    expect(oneLine('x'.repeat(10), 10)).toBe('x'.repeat(10));
  });

  it.each([5, 6, 7, 8])(
    'given an emoji where the cut would fall (%i letters before them), then no lone surrogate is left (Postgres json refuses one)',
    (letters) => {
      const cut = oneLine(`${'a'.repeat(letters)}${'😀'.repeat(5)}`, 10);
      expect(cut.length).toBeLessThanOrEqual(10);
      expect(cut.endsWith('…')).toBe(true);
      // No high surrogate without its low one after it, and no low one alone.
      expect(cut).not.toMatch(
        /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
      );
    },
  );
});
