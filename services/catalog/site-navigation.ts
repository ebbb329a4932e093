import type { NavEntry } from './site.js';

// The navigation a site's configuration declares, walked from its parsed data.

export const stripExtension = (file: string): string => file.replace(/\.(mdx?|markdown)$/i, '');

export interface NavCollector {
  readonly entries: Map<string, NavEntry>;
  add(page: string, title: string | undefined, groups: readonly string[]): void;
}

export const navCollector = (): NavCollector => {
  const entries = new Map<string, NavEntry>();
  return {
    entries,
    add: (page, title, groups) => {
      const key = stripExtension(page.replace(/^\.?\//, ''));
      if (!entries.has(key)) entries.set(key, { order: entries.size, title, groups: [...groups] });
    },
  };
};

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Mintlify navigation (docs.json or mint.json): any nesting of tabs, versions, groups, pages. */
export const walkMintlify = (
  node: unknown,
  groups: readonly string[],
  nav: NavCollector,
  onVersion: (name: string, isDefault: boolean, pages: string[]) => void,
  prefix: string,
): string[] => {
  const pages: string[] = [];
  if (typeof node === 'string') {
    nav.add(prefix + node, undefined, groups);
    return [node];
  }
  if (Array.isArray(node)) {
    for (const item of node) pages.push(...walkMintlify(item, groups, nav, onVersion, prefix));
    return pages;
  }
  if (!isRecord(node)) return pages;
  const label = ['tab', 'group', 'anchor', 'dropdown', 'version', 'language', 'item']
    .map((key) => node[key])
    .find((value): value is string => typeof value === 'string');
  const inner = label === undefined ? groups : [...groups, label];
  if (typeof node.page === 'string')
    pages.push(...walkMintlify(node.page, inner, nav, onVersion, prefix));
  for (const [key, value] of Object.entries(node)) {
    if (typeof value === 'object' && value !== null) {
      if (key === 'global' || key === 'colors') continue;
      pages.push(...walkMintlify(value, inner, nav, onVersion, prefix));
    }
  }
  if (typeof node.version === 'string') onVersion(node.version, node.default === true, pages);
  return pages;
};

/** MkDocs `nav:` entries: `path.md`, `Title: path.md`, `Section: [...]`. */
export const walkMkdocsNav = (
  node: unknown,
  groups: readonly string[],
  nav: NavCollector,
  prefix: string,
): void => {
  if (typeof node === 'string') {
    if (!/^[a-z]+:\/\//i.test(node)) nav.add(prefix + node, undefined, groups);
    return;
  }
  if (Array.isArray(node)) {
    for (const item of node) walkMkdocsNav(item, groups, nav, prefix);
    return;
  }
  if (!isRecord(node)) return;
  for (const [title, value] of Object.entries(node)) {
    if (typeof value === 'string') {
      if (!/^[a-z]+:\/\//i.test(value)) nav.add(prefix + value, title || undefined, groups);
    } else walkMkdocsNav(value, title ? [...groups, title] : groups, nav, prefix);
  }
};

// DocFX toc.yml is walked in site-toc.ts.
