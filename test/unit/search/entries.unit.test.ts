import { describe, expect, it } from 'vitest';
import type { CatalogNode } from '../../../services/search/documents.js';
import { createEntryStore } from '../../../services/search/entries.js';

const page = (uid: string, body: string, offsets: readonly number[]): CatalogNode => ({
  uid,
  label: 'Doc',
  title: uid,
  summary: '',
  body,
  product: null,
  monikers: [],
  attributes: {},
  lastModified: '2026-12-06T00:00:00.000Z',
  page: null,
  path: null,
  sections: offsets.map((offset, i) => ({
    anchor: `s${String(i)}`,
    heading: `Section ${String(i)}`,
    level: 2,
    offset,
  })),
});

/** A page of `count` sections of varied sizes and scripts; returns it with its offsets. */
const longPage = (count: number): { body: string; offsets: number[] } => {
  let body = 'Intro — with “quotes” and an emoji 🚀.\n\n';
  const offsets: number[] = [];
  for (let i = 0; i < count; i += 1) {
    offsets.push(body.length);
    const words = `word${String(i)} 中文 ümlaut `.repeat(40 + ((i * 97) % 400));
    body += `## Section ${String(i)}\n\n${words}\n\n`;
  }
  return { body, offsets };
};

describe('entry store page texts', () => {
  it('given a long page kept in pieces, when ranges are read, then each equals the same range of the text', () => {
    const store = createEntryStore();
    const { body, offsets } = longPage(60);
    store.setText('p', page('p', body, offsets));
    expect(store.text('p')).toBe(body);
    const text = store.pageText('p');
    expect(text.length).toBe(body.length);
    // Every section, ranges across pieces, the ends, and ranges out of bounds.
    const ranges: [number, number][] = offsets.map((from, i) => [
      from,
      offsets[i + 1] ?? body.length,
    ]);
    for (let i = 0; i < 200; i += 1) {
      const from = (i * 7919) % body.length;
      ranges.push([from, from + ((i * 104729) % 30_000)]);
    }
    ranges.push([0, body.length], [body.length - 3, body.length + 10], [0, 12], [40, 40]);
    for (const [from, to] of ranges)
      expect(text.slice(from, to), `${from}-${to}`).toBe(body.slice(from, to));
  });

  it('given a short page and a code sample, when read, then the text is whole', () => {
    const store = createEntryStore();
    store.setText('short', page('short', 'One line.\n## A\nTwo.', [10]));
    expect(store.pageText('short').slice(0, 100)).toBe('One line.\n## A\nTwo.');
    store.setText('code', { ...page('code', 'const x = 1;', []), label: 'CodeSample' });
    expect(store.pageText('code').slice(6, 7)).toBe('x');
    expect(store.text('missing')).toBe('');
    expect(store.pageText('missing').length).toBe(0);
  });
});
