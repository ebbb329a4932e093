import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { NodeContent } from './content.js';
import { normalizeContent } from './content.js';
import { linkNodes, NodeTable } from './corpus-links.js';
import { attachSampleChecks } from './corpus-sample-checks.js';
import { applyDocfxMonikers } from './docfx-monikers.js';
import type { Collected, CorpusIssue, DanglingLink, SkippedFile } from './issues.js';
import { buildNode, isMdx, readDraft, type BuiltNode, type Draft } from './page-node.js';
import { parsePagesInWorkers } from './page-parsers.js';
import type { CheckMode, SampleCheck } from './samples.js';
import {
  compareMonikers,
  detectSite,
  latestVersions,
  locatePages,
  type PageLocation,
  type Site,
} from './site.js';

export type { CorpusIssue, DanglingLink, SkippedFile } from './issues.js';
export { uidFromPath } from './page-node.js';

/**
 * Reads a documentation folder as it is into node contents: Markdown and MDX pages (front
 * matter optional) in the conventions of the common generators, and JSON learning-module
 * units. Inference fills what a page does not say (uid from the path, title from the first
 * heading, summary from `description` or the first paragraph, label from the folder) and maps
 * into the closed vocabulary. Everything that was skipped and every problem is collected, each
 * with its fix, so one run reports them all: errors (what the folder declares against the
 * vocabulary) stop the ingest; warnings (links that go nowhere, includes outside the folder)
 * do not.
 */
export interface LoadedCorpus {
  readonly root: string;
  readonly source: string;
  readonly generator: Site['generator'];
  /** Files looked at (pages, units, configuration, assets). */
  readonly files: number;
  /** Sorted by uid. */
  readonly nodes: readonly NodeContent[];
  readonly errors: readonly CorpusIssue[];
  readonly warnings: readonly CorpusIssue[];
  readonly dangling: readonly DanglingLink[];
  readonly skipped: readonly SkippedFile[];
  /** Configuration files: read for navigation and versions, or named as not read. */
  readonly configuration: readonly { file: string; read: boolean; reason: string; fix?: string }[];
  /** Versions found, newest first, and the newest released one of each version group. */
  readonly versions: readonly string[];
  readonly latest: readonly string[];
  readonly baseUrl: string | undefined;
}

export interface LoadCorpusOptions {
  /** The source the nodes belong to (see sources.ts); path-derived uids start with it. */
  readonly source?: string;
  /** Public URL of the site (links to it resolve as site paths); else the site's own. */
  readonly baseUrl?: string;
  /**
   * `types`: a TypeScript type check against this project's packages (the shipped corpus);
   * `syntax`: parse only (the default: fragments of other projects import what is not here);
   * false: none.
   */
  readonly checkSamples?: CheckMode | false;
  /** A known check result for a sample with this uid and code (e.g. the stored one). */
  readonly knownCheck?: (uid: string, language: string, code: string) => SampleCheck | undefined;
}
const PAGE_FILE = /\.(md|mdx|markdown)$/i;
const ASSET_FILE =
  /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|mp3|mp4|webm|mov|pdf|woff2?|ttf|otf|eot|zip|gz|excalidraw)$/i;
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', '.docusaurus', '.cache']);
const toPosix = (path: string): string => path.split(sep).join('/');

/** The folder's files as an ingest sees them (relative, sorted; tool folders left out). */
export const listFiles = async (root: string, dir: string = root): Promise<string[]> => {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (SKIPPED_FOLDERS.has(entry.name)) continue;
    // Hidden folders hold tooling, except the generators' own configuration.
    if (entry.name.startsWith('.') && entry.name !== '.vitepress') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === 'theme' && toPosix(relative(root, dir)) === '.vitepress') continue;
      files.push(...(await listFiles(root, path)));
    } else if (entry.isFile()) files.push(toPosix(relative(root, path)));
  }
  return files;
};

const ASSET_NOTE = { reason: 'an image or other asset, not a page' } as const;

const skipReason = (file: string, site: Site): SkippedFile | undefined => {
  if (ASSET_FILE.test(file)) return { file, ...ASSET_NOTE };
  if (site.configFiles.has(file)) return undefined;
  if (/\.(ya?ml|toml|lock)$/i.test(file))
    return { file, reason: 'data or tool configuration, not a page' };
  if (/\.(css|scss|less|html?)$/i.test(file))
    return { file, reason: 'styling or markup of the site, not a page' };
  return {
    file,
    reason: 'not a Markdown or MDX page',
    fix: 'nothing to do; to show its code in a page, include it (:::code source="…")',
  };
};

/** The default source name of a folder: its name, or its parent's when the name is generic. */
export const defaultSourceName = (dir: string): string => {
  const generic = new Set([
    'docs',
    'doc',
    'documentation',
    'website',
    'site',
    'content',
    'src',
    'pages',
    'en',
    'www',
    'corpus',
  ]);
  const parts = resolve(dir)
    .split(sep)
    .filter((part) => part !== '');
  let name = parts.at(-1) ?? 'docs';
  for (let i = parts.length - 1; i > 0 && generic.has(name.toLowerCase()); i -= 1)
    name = parts[i - 1] ?? name;
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '') || 'docs'
  );
};
/** The answer for a path that is not a folder. */
const emptyCorpus = (root: string, source: string, dir: string, reason: string): LoadedCorpus => ({
  root,
  source,
  generator: 'markdown',
  files: 0,
  nodes: [],
  errors: [
    {
      file: dir,
      field: '(folder)',
      reason,
      fix: 'give the path of a folder of Markdown or MDX pages',
    },
  ],
  warnings: [],
  dangling: [],
  skipped: [],
  configuration: [],
  versions: [],
  latest: [],
  baseUrl: undefined,
});

/** Pages (partials skipped) and JSON units (configuration aside) among `files`. */
const classifyFiles = (
  files: readonly string[],
  site: Site,
  collected: Collected,
): { pageFiles: string[]; jsonFiles: string[] } => {
  const pageFiles: string[] = [];
  const jsonFiles: string[] = [];
  for (const file of files) {
    if (PAGE_FILE.test(file)) {
      const partial = site.partial(file);
      if (partial) collected.skipped.push({ file, reason: partial });
      else pageFiles.push(file);
    } else if (file.endsWith('.json') && !site.configFiles.has(file)) jsonFiles.push(file);
  }
  return { pageFiles, jsonFiles };
};

/** Every page and unit read (pages parsed in workers) and built into a node, in file order. */
const buildNodes = async (
  root: string,
  source: string,
  site: Site,
  files: { readonly pageFiles: readonly string[]; readonly jsonFiles: readonly string[] },
  locations: ReadonlyMap<string, PageLocation>,
  latest: ReadonlyMap<string, string>,
  collected: Collected,
): Promise<BuiltNode[]> => {
  const { pageFiles, jsonFiles } = files;
  const parsedPages = await parsePagesInWorkers(
    root,
    pageFiles.map((file) => ({ file, mdx: isMdx(file, site) })),
  );
  const drafts: Draft[] = [];
  for (const file of [...pageFiles, ...jsonFiles].sort()) {
    const draft = await readDraft(
      root,
      file,
      site,
      locations.get(file),
      collected,
      parsedPages?.get(file),
    );
    if (draft) drafts.push(draft);
  }
  const built: BuiltNode[] = [];
  for (const draft of drafts) {
    const node = buildNode(draft, source, site, latest, collected);
    if (node) built.push(node);
  }
  return built;
};

export const loadCorpus = async (
  dir: string,
  options: LoadCorpusOptions = {},
): Promise<LoadedCorpus> => {
  const root = resolve(dir);
  const source = options.source ?? defaultSourceName(root);
  const collected: Collected = {
    errors: [],
    warnings: [],
    skipped: [],
    dangling: [],
    danglingKeys: new Set(),
  };
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) return emptyCorpus(root, source, dir, 'not a folder');
  const files = await listFiles(root);
  const site = await detectSite(root, files);
  const { pageFiles, jsonFiles } = classifyFiles(files, site, collected);
  const locations = locatePages(site, pageFiles);
  const latest = latestVersions(site, locations);
  const pages = await buildNodes(
    root,
    source,
    site,
    { pageFiles, jsonFiles },
    locations,
    latest,
    collected,
  );
  const built = applyDocfxMonikers(pages, site, collected);
  const table = new NodeTable(collected);
  for (const node of built) table.add(node.content, node.draft.file);
  const baseUrl = options.baseUrl ?? site.baseUrl;
  const used = await linkNodes(table, { root, files, baseUrl, site, latest, built }, collected);
  const { nodes } = table;
  const handled = new Set([...pageFiles, ...jsonFiles, ...collected.skipped.map((s) => s.file)]);
  for (const file of files) {
    if (handled.has(file) || used.has(file) || site.configFiles.has(file)) continue;
    const skipped = skipReason(file, site);
    if (skipped) collected.skipped.push(skipped);
  }

  if (collected.errors.length === 0) await attachSampleChecks(nodes, options);
  const versions = [
    ...new Set(
      [...locations.values()].flatMap((l) => (l.version === undefined ? [] : [l.version])),
    ),
  ];
  const sorted = [...nodes.values()]
    .map(normalizeContent)
    .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return {
    root,
    source,
    generator: site.generator,
    files: files.length,
    nodes: sorted,
    errors: collected.errors,
    warnings: collected.warnings,
    dangling: collected.dangling,
    skipped: collected.skipped.sort((a, b) => (a.file < b.file ? -1 : 1)),
    configuration: [...site.notes],
    versions: versions.sort(compareMonikers),
    latest: [...new Set(latest.values())],
    baseUrl,
  };
};
