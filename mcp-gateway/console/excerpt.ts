import { previewOf, readableUnits } from '../../services/search/readable.js';
import { html, type Html } from './html.js';

const PREVIEW_CHARS = 300;

/**
 * The start of a search hit's excerpt as HTML: its prose and code spans as text (escaped, the
 * backticks kept as the excerpt has them), its code blocks as preformatted code, lines kept.
 */
export const excerptHtml = (excerpt: string): Html => {
  const parts: (Html | string)[] = [];
  let prose: string[] = [];
  const endProse = (): void => {
    if (prose.length > 0) parts.push(html`<p>${prose.join(' ')}</p>`);
    prose = [];
  };
  for (const unit of readableUnits(previewOf(excerpt, PREVIEW_CHARS))) {
    if (!unit.block) {
      prose.push(unit.text);
      continue;
    }
    endProse();
    const lines = unit.text.split('\n');
    parts.push(html`<pre><code>${lines.slice(1, -1).join('\n')}</code></pre>`);
  }
  endProse();
  return html`${parts}`;
};
