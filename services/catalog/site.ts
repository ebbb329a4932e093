import {
  noteCodeConfigs,
  readDocfx,
  readDocusaurus,
  readMintlify,
  readMkdocs,
  SiteDraft,
  withPrefix,
} from './site-config.js';
import {
  excludedVersionReason,
  outsideSiteReason,
  locateDocusaurusPage,
  type DocusaurusLayout,
} from './site-docusaurus.js';
import { docfxPartialReason, docfxRouteFile, type DocfxLayout } from './site-docfx.js';
import { stripExtension } from './site-navigation.js';
import { compareMonikers, isReleased, monikerOf, VERSION_NAME } from './site-versions.js';

export { compareMonikers, isReleased, monikerOf, VERSION_NAME } from './site-versions.js';

/**
 * What a documentation folder's generator implies: where its pages start (a site path is
 * relative to that), which files are configuration, navigation titles and order read from the
 * configuration that is data (`docs.json`, `mint.json`, `mkdocs.yml`, `toc.yml`,
 * `_category_.json`, `versions.json`), and the configuration that is code (`sidebars.js`,
 * `.vitepress/config.ts`, `docusaurus.config.js`), which is not run, only named in the report.
 */
export type Generator = 'mintlify' | 'docusaurus' | 'mkdocs' | 'vitepress' | 'docfx' | 'markdown';

export interface NavEntry {
  /** Position in the site's navigation, from 0. */
  readonly order: number;
  readonly title: string | undefined;
  /** The groups (tabs, sections) the page sits in, outermost first. */
  readonly groups: readonly string[];
}

export interface ConfigNote {
  readonly file: string;
  /** True when the file was read (navigation, titles, versions, site URL). */
  readonly read: boolean;
  readonly reason: string;
  readonly fix?: string;
}

export interface Site {
  readonly generator: Generator;
  /** Folder (relative, `/`-separated, '' for the root) that site paths are relative to. */
  readonly contentRoot: string;
  /** Folder (relative, '' for the root) of the shallowest docfx.json: what `~/` paths mean. */
  readonly docfxRoot: string | undefined;
  /** docfx.json's build layout: routes (relative to content `src`), excluded files, monikers. */
  readonly docfx?: DocfxLayout;
  /** Pages of this site whose `.md` files are MDX (Docusaurus and Mintlify compile them so). */
  readonly mdMeansMdx: boolean;
  readonly baseUrl: string | undefined;
  /** Docusaurus docs and blog folders and their routes (site-docusaurus.ts), when one. */
  readonly docusaurus: DocusaurusLayout | undefined;
  /** By page file without extension, relative to the corpus root. */
  readonly navigation: ReadonlyMap<string, NavEntry>;
  /** Version names the configuration calls the default (latest) one. */
  readonly declaredLatest: ReadonlySet<string>;
  /** Version names in the configuration's order, newest first (Docusaurus versions.json). */
  readonly declaredVersions: readonly string[];
  readonly notes: readonly ConfigNote[];
  /** Redirects the configuration declares (`/specification/latest/:slug*` → …). */
  readonly redirects: readonly Redirect[];
  /** Files that are configuration (read or not) rather than pages or assets. */
  readonly configFiles: ReadonlySet<string>;
  /** Why a Markdown file is not a page of its own (partials, snippets), or undefined. */
  partial(file: string): string | undefined;
}

export interface Redirect {
  readonly source: string;
  readonly destination: string;
}

// The configuration readers live in site-config.ts (navigation walkers in
// site-navigation.ts), version names in site-versions.ts.

/** Why a Markdown file is not a page of its own (partials, snippets), or undefined. */
const partialReason = (generator: Generator, file: string): string | undefined => {
  const name = file.slice(file.lastIndexOf('/') + 1);
  if (/^_/.test(name) || file.split('/').some((segment) => segment.startsWith('_')))
    return 'a partial (its name or folder starts with _): included by pages, not a page itself';
  if (generator === 'mintlify' && file.startsWith('snippets/'))
    return 'a Mintlify snippet: imported by pages, not a page itself';
  if (file.startsWith('versioned_sidebars/')) return 'Docusaurus sidebar data';
  if (/^(node_modules|dist|build|site|\.docusaurus|\.vitepress\/(cache|dist))\//.test(file))
    return 'build output or dependencies';
  return undefined;
};

export const detectSite = async (root: string, files: readonly string[]): Promise<Site> => {
  const draft = new SiteDraft();
  const fileSet = new Set(files);
  noteCodeConfigs(draft, files);
  const mintlify = ['docs.json', 'mint.json'].find((file) => fileSet.has(file));
  if (mintlify) await readMintlify(draft, root, mintlify);
  const mkdocs = ['mkdocs.yml', 'mkdocs.yaml'].find((file) => fileSet.has(file));
  if (mkdocs) await readMkdocs(draft, root, mkdocs);
  await readDocfx(draft, root, files, fileSet);
  await readDocusaurus(draft, root, files, fileSet);
  if (files.some((file) => file.startsWith('.vitepress/'))) draft.generator = 'vitepress';

  const { generator } = draft;
  const mdMeansMdx = generator === 'docusaurus' || generator === 'mintlify';
  return {
    generator,
    contentRoot: draft.contentRoot,
    docfxRoot: draft.docfxRoot,
    ...(draft.docfx ? { docfx: draft.docfx } : {}),
    mdMeansMdx,
    baseUrl: draft.baseUrl,
    docusaurus: draft.docusaurus,
    navigation: draft.nav.entries,
    declaredLatest: draft.declaredLatest,
    declaredVersions: draft.declaredVersions,
    notes: draft.notes,
    redirects: draft.redirects,
    configFiles: draft.configFiles,
    partial: (file) =>
      partialReason(generator, file) ??
      (draft.docusaurus
        ? (excludedVersionReason(draft.docusaurus, file) ??
          outsideSiteReason(draft.docusaurus, file))
        : undefined) ??
      (draft.docfx ? docfxPartialReason(draft.docfx, file) : undefined),
  };
};

export interface PageLocation {
  /** Site path of the page, `/`-prefixed (`/specification/2025-11-25/client/sampling`). */
  readonly path: string;
  /** The page across versions: the site path without its version folder. */
  readonly page: string;
  /** The version folder's moniker, when the page is in one. */
  readonly version: string | undefined;
  /** The version group (the folder holding the version folders), when versioned. */
  readonly versionGroup: string | undefined;
  /** True when `path` is the generator's own route (Docusaurus: ids and slugs applied). */
  readonly routed?: boolean;
  /** Other site paths the page answers to in links (a Docusaurus doc id's route). */
  readonly aliases?: readonly string[];
}

const sitePathOf = (relative: string): string => {
  const withoutExtension = stripExtension(relative);
  const path = withoutExtension.replace(/(^|\/)(index|README|readme)$/, '');
  return `/${path}`.replace(/\/+$/, '') || '/';
};

/**
 * Site paths, pages and versions of every page file. A folder level holds version folders when
 * two or more of its subfolders are named like versions and share a page (the same relative
 * path): `specification/2025-11-25/client/sampling.mdx` and `specification/draft/client/
 * sampling.mdx` make `2025-11-25` and `draft` versions of the page `specification/client/
 * sampling`. Docusaurus pages get their routes from the site's layout (site-docusaurus.ts).
 */
export const locatePages = (
  site: Site,
  pageFiles: readonly string[],
): Map<string, PageLocation> => {
  const prefix = withPrefix(site.contentRoot);
  const { docfx } = site;
  // A DocFX page's site path is its route (relative to its content entry's src, under dest).
  const relative = (file: string): string =>
    (docfx ? docfxRouteFile(docfx, file) : undefined) ??
    (prefix && file.startsWith(prefix) ? file.slice(prefix.length) : file);
  // parent folder → version folder name → relative page paths under it
  const candidates = new Map<string, Map<string, Set<string>>>();
  for (const file of pageFiles) {
    const segments = relative(file).split('/');
    for (let i = 0; i < segments.length - 1; i += 1) {
      const folder = segments[i] ?? '';
      if (!VERSION_NAME.test(folder)) continue;
      const parent = segments.slice(0, i).join('/');
      const rest = stripExtension(segments.slice(i + 1).join('/')).replace(
        /(^|\/)(index|README)$/,
        '$1',
      );
      let byVersion = candidates.get(parent);
      if (!byVersion) candidates.set(parent, (byVersion = new Map<string, Set<string>>()));
      let pages = byVersion.get(folder);
      if (!pages) byVersion.set(folder, (pages = new Set()));
      pages.add(rest);
    }
  }
  const versionParents = new Set<string>();
  for (const [parent, byVersion] of candidates) {
    const sets = [...byVersion.values()];
    if (sets.length < 2) continue;
    const shared = sets.some((a, i) =>
      sets.some((b, j) => j > i && [...a].some((page) => b.has(page))),
    );
    if (shared) versionParents.add(parent);
  }
  const locations = new Map<string, PageLocation>();
  for (const file of pageFiles) {
    const routed = site.docusaurus ? locateDocusaurusPage(site.docusaurus, file) : undefined;
    if (routed) {
      locations.set(file, routed);
      continue;
    }
    const rel = relative(file);
    const segments = rel.split('/');
    let version: string | undefined;
    let group: string | undefined;
    let pageSegments = segments;
    for (let i = 0; i < segments.length - 1; i += 1) {
      const parent = segments.slice(0, i).join('/');
      if (versionParents.has(parent) && VERSION_NAME.test(segments[i] ?? '')) {
        version = monikerOf(segments[i] ?? '');
        group = parent;
        pageSegments = [...segments.slice(0, i), ...segments.slice(i + 1)];
        break;
      }
    }
    locations.set(file, {
      path: sitePathOf(rel),
      page: sitePathOf(pageSegments.join('/')),
      version,
      versionGroup: group,
    });
  }
  return locations;
};

/**
 * The newest released version of each version group: the one the configuration names as its
 * default, else the newest released by date or number.
 */
export const latestVersions = (
  site: Site,
  locations: ReadonlyMap<string, PageLocation>,
): Map<string, string> => {
  const byGroup = new Map<string, Set<string>>();
  for (const location of locations.values()) {
    if (location.versionGroup === undefined || location.version === undefined) continue;
    let set = byGroup.get(location.versionGroup);
    if (!set) byGroup.set(location.versionGroup, (set = new Set()));
    set.add(location.version);
  }
  const latest = new Map<string, string>();
  const declared = new Set([...site.declaredLatest].map(monikerOf));
  for (const [group, versions] of byGroup) {
    const named = [...versions].find((version) => declared.has(version));
    const newest = named ?? [...versions].filter(isReleased).sort(compareMonikers)[0];
    if (newest !== undefined) latest.set(group, newest);
  }
  return latest;
};
