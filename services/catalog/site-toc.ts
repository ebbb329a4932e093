import { posix } from 'node:path';
import { isRecord, type NavCollector } from './site-navigation.js';

// DocFX `toc.yml` / `TOC.yml`: `- name: Title\n  href: page.md\n  items: [...]`. An `href` is
// relative to the toc's folder (`~/` to docfx.json's); `topicHref` is the page of an entry whose
// `href` names another toc (`href: ../x/toc.yml` or a folder `x/`), whose entries are walked in
// place, nested under the entry's name.

export interface TocContext {
  readonly nav: NavCollector;
  /** Folder of docfx.json, which `~/` hrefs are relative to ('' for the root). */
  readonly docfxRoot: string | undefined;
  /** The parsed toc at a corpus file, or undefined when no such toc is in the corpus. */
  readonly loadToc: (file: string) => unknown;
  /** Tocs already walked: each is walked once, so tocs that point to each other terminate. */
  readonly visited: Set<string>;
}

const TOC_FILE = /(^|\/)toc\.ya?ml$/i;
const PAGE_FILE = /\.(mdx?|markdown)$/i;

/** The corpus file an href names, or undefined for URLs and site-absolute routes. */
const hrefFile = (href: string, dir: string, docfxRoot: string | undefined): string | undefined => {
  const path = href.replace(/[?#].*$/, '').trim();
  if (path === '' || /^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/')) return undefined;
  const joined = path.startsWith('~/')
    ? posix.join(docfxRoot ?? '', path.slice(2))
    : posix.join(dir, path);
  const normalized = posix.normalize(joined);
  return normalized.startsWith('../') ? undefined : normalized.replace(/^\.\//, '');
};

/** A toc an href names: the file itself, or a folder's toc.yml / TOC.yml. */
const tocAt = (context: TocContext, file: string, isFolder: boolean): string | undefined => {
  if (!isFolder) return TOC_FILE.test(file) ? file : undefined;
  const folder = file.replace(/\/+$/, '');
  return ['toc.yml', 'TOC.yml', 'toc.yaml']
    .map((name) => (folder === '' || folder === '.' ? name : `${folder}/${name}`))
    .find((candidate) => context.loadToc(candidate) !== undefined);
};

/** Walks a toc file (once) and every toc it points to, adding its pages in order. */
export const walkTocFile = (file: string, groups: readonly string[], context: TocContext): void => {
  if (context.visited.has(file)) return;
  context.visited.add(file);
  const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file);
  walkTocItems(context.loadToc(file), groups, dir, context);
};

export const walkTocItems = (
  node: unknown,
  groups: readonly string[],
  dir: string,
  context: TocContext,
): void => {
  if (!Array.isArray(node)) {
    if (isRecord(node) && Array.isArray(node.items)) walkTocItems(node.items, groups, dir, context);
    return;
  }
  for (const item of node) {
    if (!isRecord(item)) continue;
    const name = typeof item.name === 'string' ? item.name : undefined;
    const inner = name ? [...groups, name] : groups;
    for (const key of ['topicHref', 'href']) {
      const href = item[key];
      if (typeof href !== 'string') continue;
      const file = hrefFile(href, dir, context.docfxRoot);
      if (file === undefined) continue;
      if (PAGE_FILE.test(file)) {
        context.nav.add(file, name, groups);
        continue;
      }
      const toc = tocAt(context, file, href.replace(/[?#].*$/, '').endsWith('/'));
      if (toc !== undefined) walkTocFile(toc, inner, context);
    }
    if (item.items) walkTocItems(item.items, inner, dir, context);
  }
};
