import type { CorpusIssue } from './issues.js';

/**
 * Warnings of an ingest sorted by what a person can do about them. A real site can have a
 * thousand links to other doc sets and API uids (`/dotnet/api/…`, `<xref:System.String>`)
 * that are expected and need nothing; listed one by one they bury the few that do (a broken
 * relative link, an include that is not there). So those come first, item by item, and the
 * references outside the site are one line each, with a count and the most frequent targets.
 */
export type WarningKind =
  'broken-link' | 'missing-include' | 'missing-anchor' | 'other' | 'other-doc-set' | 'api-uid';

export interface WarningGroup {
  readonly kind: WarningKind;
  /** Listed item by item (true), or summed up in one line with examples (false). */
  readonly itemized: boolean;
  readonly issues: readonly CorpusIssue[];
  /** The most frequent targets first, with how often each is referred to. */
  readonly examples: readonly { readonly target: string; readonly count: number }[];
}

/** Order of the groups: what needs a fix first, what needs nothing last. */
const KIND_ORDER: readonly WarningKind[] = [
  'broken-link',
  'missing-include',
  'missing-anchor',
  'other',
  'other-doc-set',
  'api-uid',
];

const SUMMED_UP = new Set<WarningKind>(['other-doc-set', 'api-uid']);
const EXAMPLES = 3;

/** The link or include a warning is about: its reason starts with it (`href: why`). */
export const warningTarget = (issue: CorpusIssue): string => {
  const at = issue.reason.indexOf(': ');
  return at === -1 ? issue.reason : issue.reason.slice(0, at);
};

const isAbsoluteReference = (target: string): boolean =>
  target.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(target);

export const warningKind = (issue: CorpusIssue): WarningKind => {
  const target = warningTarget(issue);
  if (issue.fix?.startsWith('no node has uid') || /^(xref:|<xref:|@)/i.test(target))
    return 'api-uid';
  if (issue.field.startsWith('include')) return 'missing-include';
  if (
    issue.field.startsWith('code block') &&
    /not found|outside the corpus folder|not in the folder/.test(issue.reason)
  )
    return 'missing-include';
  if (!issue.field.startsWith('link')) return 'other';
  if (/ has no section #/.test(issue.reason)) return 'missing-anchor';
  return isAbsoluteReference(target) ? 'other-doc-set' : 'broken-link';
};

/** What an example names: the uid of an xref, the path of a link without its #anchor. */
const exampleTarget = (kind: WarningKind, issue: CorpusIssue): string => {
  const target = warningTarget(issue);
  if (kind === 'api-uid') return target.replace(/^<?xref:/i, '').replace(/[>?#].*$/, '');
  return target.replace(/#.*$/, '');
};

const mostFrequent = (
  kind: WarningKind,
  issues: readonly CorpusIssue[],
): { target: string; count: number }[] => {
  const counts = new Map<string, number>();
  for (const issue of issues) {
    const target = exampleTarget(kind, issue);
    counts.set(target, (counts.get(target) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, EXAMPLES)
    .map(([target, count]) => ({ target, count }));
};

export const groupWarnings = (warnings: readonly CorpusIssue[]): WarningGroup[] => {
  const byKind = new Map<WarningKind, CorpusIssue[]>();
  for (const issue of warnings) {
    const kind = warningKind(issue);
    const group = byKind.get(kind);
    if (group) group.push(issue);
    else byKind.set(kind, [issue]);
  }
  return KIND_ORDER.flatMap((kind) => {
    const issues = byKind.get(kind);
    if (!issues) return [];
    const itemized = !SUMMED_UP.has(kind);
    return [{ kind, itemized, issues, examples: itemized ? [] : mostFrequent(kind, issues) }];
  });
};

/** How each group is named in the report. */
export const WARNING_KIND_TITLES: Readonly<Record<WarningKind, string>> = {
  'broken-link': 'link(s) to a page not in this folder',
  'missing-include': 'included file(s) not found',
  'missing-anchor': 'link(s) to a section the page does not have',
  other: 'other warning(s)',
  'other-doc-set': 'link(s) to other doc sets (absolute paths or URLs not in this site)',
  'api-uid': 'API uid reference(s) that name no page',
};
