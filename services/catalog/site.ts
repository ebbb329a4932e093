import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

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
  /** Pages of this site whose `.md` files are MDX (Docusaurus and Mintlify compile them so). */
  readonly mdMeansMdx: boolean;
  readonly baseUrl: string | undefined;
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

const CODE_CONFIGS: readonly { readonly pattern: RegExp; readonly generator: Generator }[] = [
  { pattern: /^docusaurus\.config\.(js|mjs|cjs|ts)$/, generator: 'docusaurus' },
  { pattern: /^sidebars\.(js|mjs|cjs|ts|json)$/, generator: 'docusaurus' },
  { pattern: /^\.vitepress\/config\.(js|mjs|mts|ts)$/, generator: 'vitepress' },
  { pattern: /^astro\.config\.(js|mjs|ts)$/, generator: 'markdown' },
];

const stripExtension = (file: string): string => file.replace(/\.(mdx?|markdown)$/i, '');

const readText = async (root: string, file: string): Promise<string | undefined> =>
  readFile(join(root, file), 'utf8').catch(() => undefined);

interface NavCollector {
  readonly entries: Map<string, NavEntry>;
  add(page: string, title: string | undefined, groups: readonly string[]): void;
}

const navCollector = (): NavCollector => {
  const entries = new Map<string, NavEntry>();
  return {
    entries,
    add: (page, title, groups) => {
      const key = stripExtension(page.replace(/^\.?\//, ''));
      if (!entries.has(key)) entries.set(key, { order: entries.size, title, groups: [...groups] });
    },
  };
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Mintlify navigation (docs.json or mint.json): any nesting of tabs, versions, groups, pages. */
const walkMintlify = (
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
const walkMkdocsNav = (
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

/** DocFX `toc.yml`: `- name: Title\n  href: page.md\n  items: [...]`. */
const walkToc = (
  node: unknown,
  groups: readonly string[],
  nav: NavCollector,
  dir: string,
): void => {
  if (!Array.isArray(node)) {
    if (isRecord(node) && Array.isArray(node.items)) walkToc(node.items, groups, nav, dir);
    return;
  }
  for (const item of node) {
    if (!isRecord(item)) continue;
    const name = typeof item.name === 'string' ? item.name : undefined;
    const href = typeof item.href === 'string' ? item.href : undefined;
    if (href && /\.mdx?$/i.test(href) && !/^[a-z]+:\/\//i.test(href))
      nav.add(join(dir, href), name, groups);
    if (item.items) walkToc(item.items, name ? [...groups, name] : groups, nav, dir);
  }
};

const posixDir = (file: string): string =>
  file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';

const withPrefix = (dir: string): string => (dir === '' ? '' : `${dir}/`);

export const detectSite = async (root: string, files: readonly string[]): Promise<Site> => {
  const notes: ConfigNote[] = [];
  const configFiles = new Set<string>();
  const nav = navCollector();
  const declaredLatest = new Set<string>();
  let declaredVersions: string[] = [];
  let generator: Generator = 'markdown';
  let contentRoot = '';
  let baseUrl: string | undefined;
  const redirects: Redirect[] = [];
  const fileSet = new Set(files);
  const config = (file: string, read: boolean, reason: string, fix?: string): void => {
    configFiles.add(file);
    notes.push(fix === undefined ? { file, read, reason } : { file, read, reason, fix });
  };

  for (const file of files) {
    const code = CODE_CONFIGS.find(({ pattern }) => pattern.test(file));
    if (!code) continue;
    if (generator === 'markdown') generator = code.generator;
    config(
      file,
      false,
      'site configuration written as code: not run, so its navigation and titles are not read',
      'titles come from front matter or the first heading; set title: in front matter where a page needs another',
    );
  }

  const mintlify = ['docs.json', 'mint.json'].find((file) => fileSet.has(file));
  if (mintlify) {
    generator = 'mintlify';
    const text = await readText(root, mintlify);
    try {
      const parsed: unknown = JSON.parse(text ?? '');
      walkMintlify(
        isRecord(parsed) ? (parsed.navigation ?? parsed) : parsed,
        [],
        nav,
        (name, isDefault, pages) => {
          if (!isDefault) return;
          // The version's folder: the segment its pages share that names a version.
          const segments = pages.map((page) => page.split('/').find((s) => VERSION_NAME.test(s)));
          const folder = segments.find((segment) => segment !== undefined);
          declaredLatest.add(folder ?? name);
        },
        '',
      );
      if (isRecord(parsed) && Array.isArray(parsed.redirects)) {
        for (const redirect of parsed.redirects) {
          if (
            isRecord(redirect) &&
            typeof redirect.source === 'string' &&
            typeof redirect.destination === 'string'
          ) {
            redirects.push({ source: redirect.source, destination: redirect.destination });
          }
        }
      }
      if (isRecord(parsed) && Array.isArray(parsed.versions)) {
        declaredVersions = parsed.versions.filter((v): v is string => typeof v === 'string');
      }
      config(
        mintlify,
        true,
        'Mintlify site configuration: navigation order, groups and the default version read',
      );
    } catch (error) {
      config(
        mintlify,
        false,
        `not valid JSON (${(error as Error).message}); navigation not read`,
        `fix the JSON of ${mintlify}`,
      );
    }
  }

  const mkdocs = ['mkdocs.yml', 'mkdocs.yaml'].find((file) => fileSet.has(file));
  if (mkdocs) {
    generator = 'mkdocs';
    const text = (await readText(root, mkdocs)) ?? '';
    try {
      // Python-specific tags (!!python/name:…, !ENV) are kept as text.
      const parsed: unknown = parseYaml(text, {
        logLevel: 'silent',
        customTags: [],
        strict: false,
        uniqueKeys: false,
      });
      const data = isRecord(parsed) ? parsed : {};
      contentRoot =
        typeof data.docs_dir === 'string' ? data.docs_dir.replace(/^\.\/|\/$/g, '') : 'docs';
      if (typeof data.site_url === 'string') baseUrl = data.site_url;
      walkMkdocsNav(data.nav, [], nav, withPrefix(contentRoot));
      config(mkdocs, true, 'MkDocs configuration: docs_dir, site_url and nav titles read');
    } catch (error) {
      config(
        mkdocs,
        false,
        `not valid YAML (${(error as Error).message.split('\n')[0] ?? ''}); nav not read`,
        `fix the YAML of ${mkdocs}`,
      );
    }
  }

  if (fileSet.has('docfx.json')) {
    generator = 'docfx';
    config(
      'docfx.json',
      false,
      'DocFX build configuration: not needed, every Markdown file under the folder is read',
    );
  }
  for (const file of files.filter((f) => /(^|\/)toc\.ya?ml$/i.test(f))) {
    if (generator === 'markdown') generator = 'docfx';
    try {
      walkToc(
        parseYaml((await readText(root, file)) ?? '', { logLevel: 'silent' }),
        [],
        nav,
        posixDir(file),
      );
      config(file, true, 'table of contents: titles and order read');
    } catch (error) {
      config(
        file,
        false,
        `not valid YAML (${(error as Error).message.split('\n')[0] ?? ''})`,
        `fix the YAML of ${file}`,
      );
    }
  }

  if (fileSet.has('versions.json') && files.some((file) => file.startsWith('versioned_docs/'))) {
    generator = 'docusaurus';
    try {
      const parsed: unknown = JSON.parse((await readText(root, 'versions.json')) ?? '');
      if (Array.isArray(parsed)) declaredVersions = parsed.map(String);
      const newest = declaredVersions[0];
      if (newest !== undefined) declaredLatest.add(newest);
      config('versions.json', true, 'Docusaurus versions: the first is the latest release');
    } catch (error) {
      config(
        'versions.json',
        false,
        `not valid JSON (${(error as Error).message})`,
        'fix the JSON of versions.json',
      );
    }
  }
  for (const file of files.filter((f) => /(^|\/)_category_\.json$/.test(f))) {
    try {
      const parsed: unknown = JSON.parse((await readText(root, file)) ?? '');
      const label = isRecord(parsed) && typeof parsed.label === 'string' ? parsed.label : undefined;
      if (label) nav.add(`${posixDir(file)}/index`, label, []);
      config(file, true, 'Docusaurus category: label read');
    } catch (error) {
      config(
        file,
        false,
        `not valid JSON (${(error as Error).message})`,
        `fix the JSON of ${file}`,
      );
    }
  }
  if (files.some((file) => file.startsWith('.vitepress/'))) generator = 'vitepress';

  const mdMeansMdx = generator === 'docusaurus' || generator === 'mintlify';
  return {
    generator,
    contentRoot,
    mdMeansMdx,
    baseUrl,
    navigation: nav.entries,
    declaredLatest,
    declaredVersions,
    notes,
    redirects,
    configFiles,
    partial: (file) => {
      const name = file.slice(file.lastIndexOf('/') + 1);
      if (/^_/.test(name) || file.split('/').some((segment) => segment.startsWith('_')))
        return 'a partial (its name or folder starts with _): included by pages, not a page itself';
      if (generator === 'mintlify' && file.startsWith('snippets/'))
        return 'a Mintlify snippet: imported by pages, not a page itself';
      if (file.startsWith('versioned_sidebars/')) return 'Docusaurus sidebar data';
      if (/^(node_modules|dist|build|site|\.docusaurus|\.vitepress\/(cache|dist))\//.test(file))
        return 'build output or dependencies';
      return undefined;
    },
  };
};

// ---------------------------------------------------------------------------------------------
// Versions

/** A folder name that names a version: a date, a release number, or a pre-release channel. */
export const VERSION_NAME =
  /^(?:version-)?(?:\d{4}-\d{2}(?:-\d{2})?|v\d+(?:\.(?:\d+|x))*(?:-[a-z0-9.]+)?|\d+\.(?:\d+|x)(?:\.(?:\d+|x))*(?:-[a-z0-9.]+)?|draft|next|current|preview|unreleased|canary|latest)$/i;

const UNRELEASED =
  /^(draft|next|current|preview|unreleased|canary)$|-(alpha|beta|rc|pre|preview|next|canary)/i;

export const monikerOf = (folder: string): string => folder.replace(/^version-/i, '').toLowerCase();

export const isReleased = (moniker: string): boolean => !UNRELEASED.test(moniker);

const numericParts = (moniker: string): number[] =>
  moniker
    .replace(/^v/, '')
    .split(/[.-]/)
    .map((part) => (part === 'x' ? Number.MAX_SAFE_INTEGER : Number(part)))
    .map((n) => (Number.isFinite(n) ? n : -1));

/** Newest first: released before unreleased, then by date or release number, descending. */
export const compareMonikers = (a: string, b: string): number => {
  const released = Number(isReleased(b)) - Number(isReleased(a));
  if (released !== 0) return released;
  const x = numericParts(a);
  const y = numericParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const d = (y[i] ?? -1) - (x[i] ?? -1);
    if (d !== 0) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
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
 * sampling`. Docusaurus `versioned_docs/version-X/` are versions of `docs/`, which is `next`.
 */
export const locatePages = (
  site: Site,
  pageFiles: readonly string[],
): Map<string, PageLocation> => {
  const prefix = withPrefix(site.contentRoot);
  const relative = (file: string): string =>
    prefix && file.startsWith(prefix) ? file.slice(prefix.length) : file;
  const docusaurusVersioned =
    site.generator === 'docusaurus' && pageFiles.some((f) => f.startsWith('versioned_docs/'));
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
    const rel = relative(file);
    if (docusaurusVersioned && (rel.startsWith('versioned_docs/') || rel.startsWith('docs/'))) {
      const match = /^versioned_docs\/(version-[^/]+)\/(.*)$/.exec(rel);
      const version = match?.[1] ? monikerOf(match[1]) : 'next';
      const inner = match?.[2] ?? rel.slice('docs/'.length);
      const page = sitePathOf(`docs/${inner}`);
      const path = match
        ? sitePathOf(`docs/${version}/${inner}`)
        : sitePathOf(`docs/next/${inner}`);
      locations.set(file, { path, page, version, versionGroup: 'docs' });
      continue;
    }
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
