import { posix } from 'node:path';
import type { DocsPluginOptions, DocusaurusConfig } from './docusaurus-config.js';
import { monikerOf } from './site-versions.js';

// Docusaurus routing: which folder holds which version of which docs instance, and the route
// Docusaurus gives each doc (its id, `slug`, number prefixes) and each blog post (its date).

export interface DocusaurusVersion {
  /** Docusaurus's name for it (`current`, `stable`, `3.1.0`). */
  readonly name: string;
  readonly moniker: string;
  /** Folder of its Markdown, relative to the ingested root. */
  readonly dir: string;
  /** Route segment after routeBasePath: '' for the last version, `next` for current. */
  readonly routePath: string;
}

export interface DocusaurusDocs {
  readonly routeBasePath: string;
  /** Newest first, current first when it is not the last version. */
  readonly versions: readonly DocusaurusVersion[];
  /** Whether more than one version is served; else the pages carry no version. */
  readonly versioned: boolean;
  readonly lastVersion: string;
}

export interface DocusaurusBlog {
  readonly dir: string;
  readonly routeBasePath: string;
}

export interface DocusaurusLayout {
  /** Folder (relative, '' for the root) of docusaurus.config.*, or of versions.json without one. */
  readonly siteDir: string;
  readonly docs: readonly DocusaurusDocs[];
  readonly blogs: readonly DocusaurusBlog[];
  readonly baseUrl: string | undefined;
}

/** Where a page sits on the site; `routed` says the path is the generator's own route. */
export interface DocusaurusLocation {
  readonly path: string;
  readonly page: string;
  readonly version: string | undefined;
  readonly versionGroup: string | undefined;
  readonly routed: true;
  /** Other site paths the page answers to (its doc id's route, when a slug moved it). */
  readonly aliases: readonly string[];
}

const join = (...parts: string[]): string => {
  const path = posix.normalize(`/${parts.filter((p) => p !== '').join('/')}`);
  return path.replace(/\/+$/, '') || '/';
};

const relativeTo = (siteDir: string, path: string): string => {
  const joined = posix.normalize(posix.join(siteDir === '' ? '.' : siteDir, path));
  return joined === '.' ? '' : joined.replace(/\/+$/, '');
};

const versionFiles = (docs: DocsPluginOptions): { list: string; folder: string } =>
  docs.id === 'default'
    ? { list: 'versions.json', folder: 'versioned_docs' }
    : { list: `${docs.id}_versions.json`, folder: `${docs.id}_versioned_docs` };

/** The versions.json of a docs instance, relative to the site folder. */
export const versionsFileOf = (siteDir: string, docs: DocsPluginOptions): string =>
  relativeTo(siteDir, versionFiles(docs).list);

/**
 * A docs instance's versions and their folders and routes, as Docusaurus serves them: the last
 * version (lastVersion, else the first of versions.json, else current) at the route base,
 * current at `next`, others at their name, each overridden by `versions.<name>.path`.
 */
export const docsLayout = (
  siteDir: string,
  docs: DocsPluginOptions,
  released: readonly string[],
): DocusaurusDocs => {
  const names = ['current', ...released].filter(
    (name) => docs.onlyIncludeVersions === undefined || docs.onlyIncludeVersions.includes(name),
  );
  const lastVersion =
    docs.lastVersion !== undefined && names.includes(docs.lastVersion)
      ? docs.lastVersion
      : (released.find((name) => names.includes(name)) ?? 'current');
  const { folder } = versionFiles(docs);
  const versions = names.map((name): DocusaurusVersion => {
    const configured = docs.versions.get(name)?.path;
    const routePath =
      configured ?? (name === lastVersion ? '' : name === 'current' ? 'next' : name);
    return {
      name,
      moniker: name === 'current' ? 'next' : monikerOf(name),
      dir:
        name === 'current'
          ? relativeTo(siteDir, docs.path)
          : relativeTo(siteDir, `${folder}/version-${name}`),
      routePath: routePath.replace(/^\/+|\/+$/g, ''),
    };
  });
  return {
    routeBasePath: docs.routeBasePath.replace(/^\/+|\/+$/g, ''),
    versions,
    versioned: names.length > 1,
    lastVersion,
  };
};

/** The layout of a Docusaurus site from its configuration (or defaults) and versions lists. */
export const docusaurusLayout = (
  siteDir: string,
  config: DocusaurusConfig | undefined,
  releasedByInstance: ReadonlyMap<string, readonly string[]>,
  defaults: { docs: DocsPluginOptions; blog: { path: string; routeBasePath: string } },
): DocusaurusLayout => {
  const docs = config ? config.docs : [defaults.docs];
  const blogs = config ? config.blogs : [defaults.blog];
  const baseUrl =
    config?.url === undefined
      ? undefined
      : `${config.url.replace(/\/+$/, '')}/${(config.baseUrl ?? '/').replace(/^\/+/, '')}`;
  return {
    siteDir,
    docs: docs.map((d) => docsLayout(siteDir, d, releasedByInstance.get(d.id) ?? [])),
    blogs: blogs.map((b) => ({
      dir: relativeTo(siteDir, b.path),
      routeBasePath: b.routeBasePath.replace(/^\/+|\/+$/g, ''),
    })),
    baseUrl,
  };
};

const NUMBER_PREFIX = /^\d+\s*[-_.]+\s*(?=\S)/;
const stripNumberPrefix = (segment: string): string =>
  /^\d+$/.test(segment) ? segment : segment.replace(NUMBER_PREFIX, '');
const PAGE = /\.(mdx?|markdown)$/i;

const inside = (dir: string, file: string): string | undefined =>
  dir === '' ? file : file.startsWith(`${dir}/`) ? file.slice(dir.length + 1) : undefined;

/** A doc's id and slug (without route base or version), as Docusaurus computes them. */
export const docRoute = (
  relative: string,
  fields: Readonly<Record<string, unknown>>,
): { id: string; slug: string } => {
  const segments = relative.replace(PAGE, '').split('/');
  const file = segments.pop() ?? '';
  const dirs = segments.map(stripNumberPrefix);
  const name = stripNumberPrefix(file);
  const frontId = typeof fields.id === 'string' && fields.id.trim() !== '' ? fields.id : undefined;
  const base = frontId ?? name;
  const id = [...dirs, base].join('/');
  const dirSlug = dirs.join('/');
  const slug = fields.slug;
  if (typeof slug === 'string' && slug.trim() !== '') {
    return {
      id,
      slug: slug.startsWith('/') ? join(slug) : join(posix.normalize(`/${dirSlug}/${slug}`)),
    };
  }
  // Docusaurus judges a category index by its file name, whatever its front matter id.
  const isCategoryIndex =
    /^(index|readme)$/i.test(name) ||
    (dirs.length > 0 && name.toLowerCase() === (dirs.at(-1) ?? '').toLowerCase());
  return { id, slug: join(dirSlug, isCategoryIndex ? '' : base) };
};

const DATED = /(?:^|\/)(\d{4})[-/](\d{1,2})[-/](\d{1,2})[-/]?(.*)$/;

/** A blog post's route below its route base: `YYYY/MM/DD/slug`, or its front matter slug. */
export const blogRoute = (relative: string, fields: Readonly<Record<string, unknown>>): string => {
  const slug = fields.slug;
  if (typeof slug === 'string' && slug.trim() !== '') return join(slug);
  const path = relative.replace(PAGE, '').replace(/\/(index|README)$/i, '');
  const dated = DATED.exec(path);
  if (!dated) return join(path);
  const [, year = '', month = '', day = '', rest = ''] = dated;
  const before = path.slice(0, path.length - dated[0].length);
  return join(before, year, month.padStart(2, '0'), day.padStart(2, '0'), rest);
};

/**
 * Where Docusaurus serves a page file, with its front matter (`id`, `slug`) when known; undefined
 * for files outside every docs version and blog folder.
 */
export const locateDocusaurusPage = (
  layout: DocusaurusLayout,
  file: string,
  fields: Readonly<Record<string, unknown>> = {},
): DocusaurusLocation | undefined => {
  if (!PAGE.test(file)) return undefined;
  let best: { docs: DocusaurusDocs; version: DocusaurusVersion; relative: string } | undefined;
  for (const docs of layout.docs) {
    for (const version of docs.versions) {
      const relative = inside(version.dir, file);
      if (relative !== undefined && (!best || version.dir.length > best.version.dir.length))
        best = { docs, version, relative };
    }
  }
  if (best) {
    const { docs, version, relative } = best;
    const { id, slug } = docRoute(relative, fields);
    const path = join(docs.routeBasePath, version.routePath, slug);
    const idPath = join(docs.routeBasePath, version.routePath, id);
    return {
      path,
      page: join(docs.routeBasePath, slug),
      version: docs.versioned ? version.moniker : undefined,
      versionGroup: docs.versioned ? docs.routeBasePath || '/' : undefined,
      routed: true,
      aliases: idPath === path ? [] : [idPath],
    };
  }
  for (const blog of layout.blogs) {
    const relative = inside(blog.dir, file);
    if (relative === undefined) continue;
    const path = join(blog.routeBasePath, blogRoute(relative, fields));
    return {
      path,
      page: path,
      version: undefined,
      versionGroup: undefined,
      routed: true,
      aliases: [],
    };
  }
  return undefined;
};

/**
 * Site paths worth trying for a link Docusaurus would resolve but a file lookup does not: a
 * relative link by doc id (`[x](options)`), resolved in the linking doc's version and folder.
 */
export const docusaurusLinkCandidates = (
  layout: DocusaurusLayout,
  href: string,
  fromFile: string,
): string[] => {
  if (href.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return [];
  for (const docs of layout.docs) {
    for (const version of docs.versions) {
      const relative = inside(version.dir, fromFile);
      if (relative === undefined) continue;
      const { id } = docRoute(relative, {});
      const dir = posix.dirname(id) === '.' ? '' : posix.dirname(id);
      const target = posix.normalize(`/${dir}/${href.replace(PAGE, '')}`);
      return [join(docs.routeBasePath, version.routePath, target)];
    }
  }
  return [];
};

/** Why a file in a versioned_docs folder is not a page: its version is left out of the site. */
export const excludedVersionReason = (
  layout: DocusaurusLayout,
  file: string,
): string | undefined => {
  const prefix = layout.siteDir === '' ? '' : `${layout.siteDir}/`;
  if (!file.startsWith(prefix) || !/^([\w-]+_)?versioned_docs\//.test(file.slice(prefix.length)))
    return undefined;
  const served = layout.docs.some((docs) =>
    docs.versions.some((version) => inside(version.dir, file) !== undefined),
  );
  return served
    ? undefined
    : 'a Docusaurus version the configuration leaves out (onlyIncludeVersions, or not in versions.json)';
};

/**
 * Why a Markdown file of a Docusaurus repository is not one of the site's pages: Docusaurus
 * builds only its docs folders (each served version's), its blogs and `src/pages`; the
 * repository's README, changelog or test fixtures around them are not on the site.
 */
export const outsideSiteReason = (layout: DocusaurusLayout, file: string): string | undefined => {
  const folders = [
    ...layout.docs.flatMap((docs) => docs.versions.map((version) => version.dir)),
    ...layout.blogs.map((blog) => blog.dir),
    relativeTo(layout.siteDir, 'src/pages'),
  ];
  if (folders.some((dir) => inside(dir, file) !== undefined)) return undefined;
  if (/^([\w-]+_)?versioned_docs\//.test(inside(layout.siteDir, file) ?? '')) return undefined;
  return 'not part of the Docusaurus site: it builds pages only from its docs folders, its blog and src/pages';
};
