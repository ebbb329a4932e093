import { compareMonikers } from './site.js';
import { DEFAULT_MONIKER } from './vocabulary.js';

/**
 * Cross-references written as the site writes them: a site path (`/guide/build`,
 * `guide/build.md`, `/specification/2025-11-25/client/sampling#anchor`) or a URL of a source's
 * site. Pure: resolve_xref looks the candidates up in the read model.
 */
export interface SiteReference {
  /** Site path, `/`-prefixed, without extension, `index` or trailing slash. */
  readonly path: string;
  readonly anchor: string | undefined;
  /** Set when the reference was a URL. */
  readonly url: URL | undefined;
  /** The moniker a Learn URL names (`?view=net-maui-9.0`). */
  readonly view?: string;
}

const PAGE_EXTENSION = /\.(mdx?|markdown|html?)$/i;

const normalizePath = (raw: string): string | undefined => {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const path = `/${decoded}`
    .replace(/\/{2,}/g, '/')
    .replace(PAGE_EXTENSION, '')
    .replace(/\/(index|README|readme)$/, '')
    .replace(/\/+$/, '');
  return path === '' ? '/' : path;
};

/** A site path or an http(s) URL; undefined for anything else (a uid, a mention, text). */
export const parseSiteReference = (xref: string): SiteReference | undefined => {
  const trimmed = xref.trim();
  if (/^https?:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      return undefined;
    }
    const path = normalizePath(url.pathname);
    if (path === undefined) return undefined;
    const view = url.searchParams.get('view')?.toLowerCase();
    return { path, anchor: url.hash.slice(1) || undefined, url, ...(view ? { view } : {}) };
  }
  if (/\s/.test(trimmed) || trimmed.startsWith('@') || !trimmed.includes('/')) return undefined;
  const [beforeHash = '', anchor] = trimmed.split('#', 2);
  const path = normalizePath(beforeHash.replace(/\?.*$/, '').replace(/^\.\//, ''));
  if (path === undefined) return undefined;
  const view = /[?&]view=([^&#]+)/.exec(beforeHash)?.[1]?.toLowerCase();
  return { path, anchor: anchor || undefined, url: undefined, ...(view ? { view } : {}) };
};

/** The paths to look up: the path itself, and without a `latest` folder (the newest version). */
export const pathCandidates = (path: string): string[] => {
  const withoutLatest = path.replace(/\/latest(?=\/|$)/, '') || '/';
  return withoutLatest === path ? [path] : [path, withoutLatest];
};

/**
 * Sources published at the URL's site (origin and base path), longest base path first; the
 * URL's path relative to that base.
 */
export const sourcesAtUrl = (
  url: URL,
  sites: readonly { name: string; baseUrl: string }[],
): { sources: string[]; path: string } | undefined => {
  const matches = sites
    .flatMap((site) => {
      try {
        const base = new URL(site.baseUrl);
        const prefix = base.pathname.replace(/\/+$/, '');
        if (base.origin !== url.origin) return [];
        if (prefix !== '' && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`))
          return [];
        return [{ name: site.name, prefix }];
      } catch {
        return [];
      }
    })
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const best = matches[0];
  if (!best) return undefined;
  const path = normalizePath(url.pathname.slice(best.prefix.length)) ?? '/';
  return {
    sources: matches.filter((m) => m.prefix === best.prefix).map((m) => m.name),
    path,
  };
};

/**
 * The version of a page a reference means: the node at exactly that path when no moniker is
 * asked; else the asked moniker's; else `latest`; else the newest released.
 */
export const pickVersion = <
  T extends { readonly path: string | null; readonly monikers: readonly string[] },
>(
  nodes: readonly T[],
  path: string,
  wanted: string | undefined,
): T | undefined => {
  if (wanted !== undefined) return nodes.find((node) => node.monikers.includes(wanted));
  const exact = nodes.find((node) => node.path === path);
  if (exact) return exact;
  const latest = nodes.find((node) => node.monikers.includes(DEFAULT_MONIKER));
  if (latest) return latest;
  const newest = (node: T): string => [...node.monikers].sort(compareMonikers)[0] ?? '';
  return [...nodes].sort((a, b) => compareMonikers(newest(a), newest(b)))[0];
};

/**
 * Sources whose base URL has a path (`https://learn.microsoft.com/dotnet/maui/`) that a site
 * path written without its host starts with (`/dotnet/maui/get-started/installation`), and the
 * path relative to that base.
 */
export const sourcesAtBasePath = (
  path: string,
  sites: readonly { name: string; baseUrl: string }[],
): { sources: string[]; path: string } | undefined => {
  const prefixes = sites.flatMap((site) => {
    try {
      const prefix = new URL(site.baseUrl).pathname.replace(/\/+$/, '');
      return prefix !== '' && (path === prefix || path.startsWith(`${prefix}/`))
        ? [{ name: site.name, prefix }]
        : [];
    } catch {
      return [];
    }
  });
  const longest = Math.max(...prefixes.map((p) => p.prefix.length));
  const best = prefixes.filter((p) => p.prefix.length === longest);
  if (best.length === 0) return undefined;
  return { sources: best.map((p) => p.name), path: path.slice(longest) || '/' };
};
