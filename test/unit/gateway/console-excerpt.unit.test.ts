import { describe, expect, it } from 'vitest';
import { excerptHtml } from '../../../mcp-gateway/console/excerpt.js';

describe('a search hit’s excerpt in the console', () => {
  it('given code spans, when shown, then their characters are the page’s, escaped for HTML only', () => {
    expect(
      excerptHtml('Call `get_request` with `as_of`, `**kwargs` and `std::vector<int>`.').text,
    ).toBe('<p>Call `get_request` with `as_of`, `**kwargs` and `std::vector&lt;int&gt;`.</p>');
  });

  it('given a code block, when shown, then it is preformatted code with its lines', () => {
    const shown = excerptHtml(
      "Define it:\n```python\ndef __init__(self, **kwargs):\n    self.as_of = kwargs['as_of']\n```\nDone.",
    ).text;
    expect(shown).toBe(
      '<p>Define it:</p><pre><code>def __init__(self, **kwargs):\n    self.as_of = kwargs[&#39;as_of&#39;]</code></pre><p>Done.</p>',
    );
  });

  it('given a long excerpt, when shown, then it is cut between words, not inside a code span', () => {
    const shown = excerptHtml(
      `${'text '.repeat(58)}\`--base-url https://example.com/docs/\` end`,
    ).text;
    expect(shown).not.toContain('--base');
    expect(shown).toMatch(/text …<\/p>$/);
  });
});
