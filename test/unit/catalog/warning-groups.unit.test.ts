import { afterEach, describe, expect, it } from 'vitest';
import { formatWarningGroups } from '../../../bin/commands/catalog-output.js';
import { loadCorpus } from '../../../services/catalog/corpus.js';
import type { CorpusIssue } from '../../../services/catalog/issues.js';
import { groupWarnings, warningKind } from '../../../services/catalog/warning-groups.js';
import { makeCorpus, md, type CorpusFolder } from './fixtures.js';

const link = (file: string, href: string, reason: string, fix = 'fix the link'): CorpusIssue => ({
  file,
  field: 'link (line 3)',
  reason: `${href}: ${reason}`,
  fix,
  line: 3,
});

const offSite = (n: number, href: string): CorpusIssue =>
  link(`docs/page-${n}.md`, href, `no page ${href} in this folder; the link is not an edge`);
const uid = (n: number, name: string): CorpusIssue => ({
  file: `docs/api-${n}.md`,
  field: 'link (line 3)',
  reason: `xref:${name}: no page ${name} in this folder; the link is not an edge`,
  fix: `no node has uid ${name}: fix the xref or add the page`,
  line: 3,
});

/** Warnings people act on come first; references outside the site are one line each. */
describe('grouping the warnings of an ingest', () => {
  let corpus: CorpusFolder | undefined;
  afterEach(async () => {
    await corpus?.cleanup();
  });

  it('tells each kind apart from the warnings a real folder read gives', async () => {
    // Given a page with a broken relative link, a link to another doc set, an API uid and
    // a code include that is not there
    corpus = await makeCorpus({
      'docs/a.md': md(
        { uid: 'w.a', title: 'A' },
        [
          'See [b](./missing.md), [the API](/dotnet/api/system.string) and <xref:System.String>.',
          '',
          '--8<-- "snippets/absent.py"',
          '',
        ].join('\n'),
      ),
    });
    // When it is read
    const loaded = await loadCorpus(corpus.dir, { checkSamples: false });
    // Then each warning has its kind
    const kinds = loaded.warnings.map((issue) => [warningKind(issue), issue.reason]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['broken-link', expect.stringContaining('./missing.md')],
        ['other-doc-set', expect.stringContaining('/dotnet/api/system.string')],
        ['api-uid', expect.stringContaining('System.String')],
        ['missing-include', expect.stringContaining('snippets/absent.py')],
      ]),
    );
  });

  it('puts the warnings to fix first and sums up other doc sets and API uids', () => {
    // Given many references outside the site and one broken relative link and include
    const warnings: CorpusIssue[] = [
      ...Array.from({ length: 40 }, (_, n) =>
        offSite(n, n % 2 ? '/azure/storage' : '/dotnet/api/x'),
      ),
      ...Array.from({ length: 30 }, (_, n) => uid(n, n < 20 ? 'System.String' : `System.Int${n}`)),
      link(
        'docs/guide.md',
        '../intro.md',
        'no page intro.md in this folder; the link is not an edge',
      ),
      {
        file: 'docs/guide.md',
        field: 'include (line 9)',
        reason: '--8<-- snippets/a.py: not in the folder, so its text is not ingested',
        fix: 'ingest the folder that holds the included file as well',
        line: 9,
      },
    ];
    // When they are grouped
    const groups = groupWarnings(warnings);
    // Then the kinds come in order of what needs doing, with every item kept
    expect(groups.map((group) => [group.kind, group.issues.length, group.itemized])).toEqual([
      ['broken-link', 1, true],
      ['missing-include', 1, true],
      ['other-doc-set', 40, false],
      ['api-uid', 30, false],
    ]);
    // And the summed-up kinds name their most frequent targets
    expect(groups[3]?.examples[0]).toEqual({ target: 'System.String', count: 20 });
    expect(groups[2]?.examples.map((example) => example.count)).toEqual([20, 20]);
  });

  it('prints one line per summed-up kind and the items of the others', () => {
    const warnings = [
      ...Array.from({ length: 500 }, (_, n) => uid(n, 'System.String')),
      link(
        'docs/guide.md',
        '../intro.md',
        'no page intro.md in this folder; the link is not an edge',
      ),
    ];
    const lines = formatWarningGroups(warnings);
    expect(lines[0]).toMatch(
      /^ {2}1 × link\(s\) to a page not in this folder \(fix: fix the link\):$/,
    );
    expect(lines[1]).toBe(
      '    docs/guide.md:3: ../intro.md: no page intro.md in this folder; the link is not an edge',
    );
    expect(lines[2]).toMatch(
      /^ {2}500 × API uid reference\(s\) that name no page, e\.g\. System\.String \(500×\)/,
    );
    expect(lines).toHaveLength(3);
  });

  it('caps the items of a long group and says --json has them all', () => {
    const warnings = Array.from({ length: 25 }, (_, n) =>
      link(`docs/p${n}.md`, `./gone-${n}.md`, 'no page in this folder; the link is not an edge'),
    );
    const lines = formatWarningGroups(warnings);
    expect(lines.filter((line) => line.includes('./gone-'))).toHaveLength(10);
    expect(lines.at(-1)).toBe('    … and 15 more (--json lists every one)');
  });
});
