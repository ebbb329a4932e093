import type { NodeSection } from './content.js';
import type { Collected } from './issues.js';
import {
  inRange,
  monikersNamed,
  parseMonikerRange,
  sortMonikersAscending,
  type MonikerRange,
} from './moniker-range.js';
import type { BuiltNode } from './page-node.js';
import type { Site } from './site.js';
import { DEFAULT_MONIKER } from './vocabulary.js';

/**
 * Learn monikers of a DocFX site's pages. The site's monikers are every name its docfx.json
 * groups (`moniker_range`), its pages' `monikerRange` front matter and its `::: moniker range`
 * zones mention, ordered by version (net-maui-8.0 < 9.0 < 10.0). A page is in the monikers its
 * build group and front matter allow; of those, it carries the ones it has content in: all of
 * them when it has text outside zones, else those of its zones. It also carries `latest` when
 * it has content in the site's newest moniker, so unversioned reads keep finding it. A section
 * whose content lies only in zones carries its own `monikers` (absent: all of its page's).
 *
 * A moniker-scoped read (`docs_fetch`/`resolve_xref` with `moniker`) accepts any of these and
 * shows the page whole: the zone markers are blank lines, never text, and each section's
 * `monikers` tell which version it belongs to.
 */

interface PageRanges {
  readonly built: BuiltNode;
  readonly page: MonikerRange | undefined;
  readonly zones: readonly { range: MonikerRange; openLine: number; closeLine: number }[];
}

const parseOrWarn = (
  text: string,
  file: string,
  field: string,
  collected: Collected,
): MonikerRange | undefined => {
  const parsed = parseMonikerRange(text);
  if (parsed.ok) return parsed.range;
  collected.warnings.push({
    file,
    field,
    reason: `moniker range "${text}" not understood (${parsed.reason}); ignored`,
    fix: 'write conditions such as >=net-maui-9.0, <=net-maui-10.0, joined by spaces (and) or || (or)',
  });
  return undefined;
};

const lineOfOffset = (body: string, offset: number): number => {
  let line = 0;
  for (let i = body.indexOf('\n'); i !== -1 && i < offset; i = body.indexOf('\n', i + 1)) line += 1;
  return line;
};

export const applyDocfxMonikers = (
  built: readonly BuiltNode[],
  site: Site,
  collected: Collected,
): BuiltNode[] => {
  if (site.generator !== 'docfx') return [...built];
  const pages: PageRanges[] = built.map((node) => {
    const { fields, parsed, file } = node.draft;
    const front = fields.monikerRange;
    return {
      built: node,
      page:
        typeof front === 'string' ? parseOrWarn(front, file, 'monikerRange', collected) : undefined,
      zones: (parsed.monikerZones ?? []).flatMap((zone) => {
        const range = parseOrWarn(zone.range, file, '::: moniker range', collected);
        return range ? [{ ...zone, range }] : [];
      }),
    };
  });
  const groups = site.docfx?.monikerRanges ?? [];
  const universe = sortMonikersAscending([
    ...groups.flatMap(monikersNamed),
    ...pages
      .flatMap((p) => [p.page, ...p.zones.map((z) => z.range)])
      .flatMap((range) => (range ? monikersNamed(range) : [])),
  ]);
  if (universe.length === 0) return [...built];
  const newest = universe[universe.length - 1] ?? '';
  const build = universe.filter((m) => groups.length === 0 || groups.some((g) => inRange(g, m)));
  const withLatest = (monikers: readonly string[]): string[] =>
    monikers.includes(newest) ? [...monikers, DEFAULT_MONIKER] : [...monikers];

  return pages.map(({ built: node, page, zones }) => {
    if (node.draft.isUnit) return node;
    const scope = page ? build.filter((m) => inRange(page, m)) : build;
    const body = node.draft.parsed.body;
    const lines = body.split('\n');
    // Each line's monikers: its zone's (within the page's scope), or the page's whole scope.
    const zoneOf = (line: number): readonly string[] | undefined => {
      const zone = zones.find((z) => z.openLine < line && line < z.closeLine);
      return zone ? scope.filter((m) => inRange(zone.range, m)) : undefined;
    };
    const monikersOfLines = (from: number, to: number): Set<string> => {
      const found = new Set<string>();
      for (let line = from; line < to; line += 1) {
        if ((lines[line] ?? '').trim() === '') continue;
        for (const moniker of zoneOf(line) ?? scope) found.add(moniker);
      }
      return found;
    };
    const inPage = monikersOfLines(0, lines.length);
    const pageMonikers = scope.filter((m) => inPage.has(m));
    const sectionLines = (node.content.sections ?? []).map((s) => lineOfOffset(body, s.offset));
    const sections = node.content.sections?.map((section, index): NodeSection => {
      // Its body, not its heading: a heading outside zones over zoned text is shown in every
      // version, but the section is about the versions of its text.
      const own = monikersOfLines(
        (sectionLines[index] ?? 0) + 1,
        sectionLines[index + 1] ?? lines.length,
      );
      const monikers = pageMonikers.filter((m) => own.has(m));
      return monikers.length > 0 && monikers.length < pageMonikers.length
        ? { ...section, monikers: withLatest(monikers) }
        : section;
    });
    const monikers = withLatest(pageMonikers.length > 0 ? pageMonikers : scope);
    if (monikers.length === 0) return node;
    return {
      draft: node.draft,
      content: { ...node.content, monikers, ...(sections ? { sections } : {}) },
    };
  });
};
