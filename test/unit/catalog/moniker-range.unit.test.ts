import { describe, expect, it } from 'vitest';
import {
  findMonikerZones,
  inRange,
  monikerFamily,
  parseMonikerRange,
  sortMonikersAscending,
  type MonikerRange,
} from '../../../services/catalog/moniker-range.js';
import { parsePage } from '../../../services/catalog/page.js';
import { MONIKER_PATTERN } from '../../../services/catalog/vocabulary.js';

const SITE = ['net-maui-8.0', 'net-maui-9.0', 'net-maui-10.0', 'net-maui-11.0'];

const range = (text: string): MonikerRange => {
  const parsed = parseMonikerRange(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.range;
};
const matching = (text: string): string[] => SITE.filter((m) => inRange(range(text), m));

describe('Learn moniker ranges', () => {
  it('given the site monikers in any order, when sorted, then by version number, not text', () => {
    expect(
      sortMonikersAscending(['net-maui-10.0', 'net-maui-9.0', 'net-maui-11.0', 'net-maui-8.0']),
    ).toEqual(SITE);
    expect(monikerFamily('net-maui-10.0')).toBe('net-maui');
  });

  it.each([
    ['>=net-maui-9.0', ['net-maui-9.0', 'net-maui-10.0', 'net-maui-11.0']],
    ['<=net-maui-9.0', ['net-maui-8.0', 'net-maui-9.0']],
    ['<net-maui-10.0', ['net-maui-8.0', 'net-maui-9.0']],
    ['>net-maui-10.0', ['net-maui-11.0']],
    ['=net-maui-8.0', ['net-maui-8.0']],
    ['net-maui-10.0', ['net-maui-10.0']],
    ['>=net-maui-8.0 <=net-maui-9.0', ['net-maui-8.0', 'net-maui-9.0']],
    ['>= net-maui-9.0  <=net-maui-10.0', ['net-maui-9.0', 'net-maui-10.0']],
    ['=net-maui-8.0 || >=net-maui-11.0', ['net-maui-8.0', 'net-maui-11.0']],
    ['>=aspnetcore-8.0', []],
  ])('given the range %s, when evaluated on the site monikers, then %j', (text, expected) => {
    expect(matching(text)).toEqual(expected);
  });

  it('given a malformed range, when parsed, then a reason instead of a range', () => {
    expect(parseMonikerRange('>=net-maui-9.0 ||')).toMatchObject({ ok: false });
    expect(parseMonikerRange('~net-maui-9.0')).toMatchObject({ ok: false });
  });

  it('given Learn monikers, when checked as read arguments, then accepted beside version folders', () => {
    for (const moniker of [...SITE, 'aspnetcore-8.0', 'latest', '2025-11-25', 'v2']) {
      expect(MONIKER_PATTERN.test(moniker)).toBe(true);
    }
    expect(MONIKER_PATTERN.test('net-maui')).toBe(false);
  });
});

describe('moniker zones in a page', () => {
  const page = [
    '# Title', // 0
    '',
    '::: moniker range="<=net-maui-9.0"', // 2
    'Old way.',
    '::: moniker-end', // 4
    '',
    ':::moniker range=">=net-maui-10.0"', // 6
    '```md',
    '::: moniker range="=net-maui-8.0"',
    '```',
    'New way.',
    '::: moniker-end', // 11
  ].join('\n');

  it('given zones (one with a fenced example of a marker), when read, then their ranges and lines', () => {
    expect(findMonikerZones(page)).toEqual([
      { range: '<=net-maui-9.0', openLine: 2, closeLine: 4 },
      { range: '>=net-maui-10.0', openLine: 6, closeLine: 11 },
    ]);
  });

  it('given a page with zones, when parsed, then its marker lines are blank, code kept, lines kept', () => {
    const parsed = parsePage(page, { mdx: false });
    const lines = parsed.body.split('\n');
    expect(lines).toHaveLength(page.split('\n').length);
    expect([2, 4, 6, 11].map((line) => lines[line])).toEqual(['', '', '', '']);
    expect(lines[8]).toBe('::: moniker range="=net-maui-8.0"'); // code stays as written
    expect(parsed.body).not.toMatch(/Moniker|range=">=|moniker-end/);
    expect(parsed.monikerZones).toHaveLength(2);
  });

  it('given an unclosed zone, when read, then it runs to the end of the page', () => {
    expect(findMonikerZones('a\n::: moniker range=">=net-maui-9.0"\nb')).toEqual([
      { range: '>=net-maui-9.0', openLine: 1, closeLine: 3 },
    ]);
  });
});
