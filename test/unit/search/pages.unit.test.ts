import { describe, expect, it } from 'vitest';
import { analyze } from '../../../services/search/analyzer.js';
import {
  bestSection,
  passageOffsets,
  plainText,
  preferredVersion,
} from '../../../services/search/pages.js';

/**
 * Search answers with pages: given the versions of a page a search found, the one a hit stands
 * for; given a page and the query's term weights, the section that answers best.
 */
describe('a page across versions', () => {
  it('given latest among the versions found, when one is chosen, then latest', () => {
    expect(
      preferredVersion([
        { id: 'draft', monikers: ['draft'] },
        { id: 'new', monikers: ['2026-07-28', 'latest'] },
        { id: 'old', monikers: ['2025-11-25'] },
      ]),
    ).toBe('new');
  });

  it('given no latest, when one is chosen, then the newest released, never a draft before a release', () => {
    expect(
      preferredVersion([
        { id: 'draft', monikers: ['draft'] },
        { id: 'v2', monikers: ['v2'] },
        { id: 'v10', monikers: ['v10'] },
        { id: 'rc', monikers: ['v11-rc.1'] },
      ]),
    ).toBe('v10');
    expect(preferredVersion([{ id: 'draft', monikers: ['draft'] }])).toBe('draft');
    expect(preferredVersion([])).toBeUndefined();
  });
});

describe('the best section of a page', () => {
  const body = [
    'Intro text about the tool.',
    '',
    '## Installing',
    '',
    'Run npm install to get it.',
    '',
    '## Configuring proxies',
    '',
    'Set the proxy option in the [config](./config.md) file; a **proxy** forwards requests.',
    '',
    '### Proxy headers',
    '',
    'Headers pass through.',
  ].join('\n');
  const offsetOf = (heading: string): number => body.indexOf(heading);
  const page = {
    title: 'Guide',
    body,
    sections: [
      { anchor: 'installing', heading: 'Installing', level: 2, offset: offsetOf('## Installing') },
      {
        anchor: 'configuring-proxies',
        heading: 'Configuring proxies',
        level: 2,
        offset: offsetOf('## Configuring proxies'),
      },
      {
        anchor: 'proxy-headers',
        heading: 'Proxy headers',
        level: 3,
        offset: offsetOf('### Proxy headers'),
      },
    ],
  };
  const weights = (query: string): Map<string, number> =>
    new Map(analyze(query).map((term) => [term, 1]));

  it('given a query, when the page is cut at its headings, then the section that matches it, with its heading path and a plain excerpt', () => {
    const section = bestSection(page, weights('configure a proxy option'), analyze);
    expect(section).toMatchObject({
      anchor: 'configuring-proxies',
      heading: 'Configuring proxies',
      path: ['Configuring proxies'],
    });
    expect(section?.excerpt).toContain('Set the proxy option in the config file; a proxy forwards');
    expect(bestSection(page, weights('proxy headers'), analyze)).toMatchObject({
      anchor: 'proxy-headers',
      path: ['Configuring proxies', 'Proxy headers'],
    });
  });

  it('given a query no section mentions, then the text before the first heading', () => {
    expect(bestSection(page, weights('unrelated words'), analyze)).toMatchObject({
      anchor: null,
      heading: 'Guide',
    });
  });

  it('given the index counts of the query terms per passage, then the section they favour, its excerpt cut from the text', () => {
    const none = new Map<string, number>();
    const counts = {
      // Passages: before the first heading, then each section.
      counts: [none, none, none, new Map([['header', 3]])],
      lengths: [10, 4, 20, 4],
    };
    const section = bestSection(page, weights('headers'), analyze, counts);
    expect(section).toMatchObject({ anchor: 'proxy-headers', heading: 'Proxy headers' });
    expect(section?.excerpt).toContain('Headers pass through.');
    // Counts the same as the text's give the same section as reading the text.
    const fromText = bestSection(page, weights('configure a proxy option'), analyze);
    const passages = passageOffsets(page.sections);
    const analysed = passages.map((start, i) =>
      analyze(page.body.slice(start, passages[i + 1] ?? page.body.length)),
    );
    const asIndexed = {
      counts: analysed.map((terms) => {
        const count = new Map<string, number>();
        for (const term of terms) count.set(term, (count.get(term) ?? 0) + 1);
        return count;
      }),
      lengths: analysed.map((terms) => terms.length),
    };
    expect(bestSection(page, weights('configure a proxy option'), analyze, asIndexed)?.anchor).toBe(
      fromText?.anchor,
    );
  });

  it('strips link targets, tags and emphasis from Markdown', () => {
    expect(plainText('See **[the docs](https://x.dev/a)** and <Card title="x">it</Card>')).toBe(
      'See the docs and  it ',
    );
  });
});
