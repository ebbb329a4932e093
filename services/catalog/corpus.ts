import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { NodeContent, NodeEdge } from './content.js';
import { normalizeContent } from './content.js';
import { extractSamples } from './code-samples.js';
import {
  withArticle,
  type Collected,
  type CorpusIssue,
  type DanglingLink,
  type SkippedFile,
} from './issues.js';
import { createLinkResolver, type LinkResolver } from './links.js';
import { buildNode, isMdx, readDraft, type BuiltNode, type Draft } from './page-node.js';
import { parsePagesInWorkers } from './page-parsers.js';
import { checkSamples, CHECKED_LANGUAGES, type CheckMode, type SampleCheck } from './samples.js';
import { compareMonikers, detectSite, latestVersions, locatePages, type Site } from './site.js';
import { edgeSpec } from './vocabulary.js';

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

/** Text links, `<xref:…>` and `@mentions` that name a node become `xref` edges. */
const linkEdges = (node: BuiltNode, resolver: LinkResolver, collected: Collected): NodeEdge[] => {
  const { draft, content } = node;
  const declared = new Set(content.edges.map((edge) => edge.target));
  const targets = new Map<string, string | undefined>();
  for (const link of draft.parsed.links) {
    if (link.mention) {
      const name = link.href.slice(1);
      if (resolver.hasUid(name) && name !== content.uid && !targets.has(name))
        targets.set(name, undefined);
      continue;
    }
    const resolved = resolver.resolve(link.href, { file: draft.file, path: content.path });
    const line = link.line + draft.bodyOffset;
    if (resolved.kind === 'node') {
      if (resolved.uid !== content.uid && !targets.has(resolved.uid))
        targets.set(resolved.uid, resolved.anchor);
      if (resolved.anchor !== undefined && !resolver.hasAnchor(resolved.uid, resolved.anchor)) {
        collected.warnings.push({
          file: draft.file,
          field: `link (line ${line})`,
          reason: `${link.href}: ${resolved.uid} has no section #${resolved.anchor}`,
          fix: 'link to one of its headings’ anchors, or drop the #part',
          line,
        });
      }
    } else if (resolved.kind === 'missing') {
      const key = `${draft.file}\n${resolved.target}`;
      if (!collected.danglingKeys.has(key)) {
        collected.danglingKeys.add(key);
        collected.dangling.push({
          file: draft.file,
          uid: content.uid,
          target: resolved.target,
          edgeType: 'xref',
        });
      }
      collected.warnings.push({
        file: draft.file,
        field: `link (line ${line})`,
        reason: `${link.href}: no page ${resolved.target} in this folder; the link is not an edge`,
        fix: resolved.fix,
        line,
      });
    }
  }
  return [...targets]
    .filter(([target]) => !declared.has(target))
    .map(([target, anchor], index) => ({
      type: 'xref',
      target,
      ordinal: index,
      origin: 'text',
      ...(anchor === undefined ? {} : { anchor }),
    }));
};

/** Checks every edge end against the vocabulary and reports dangling targets (then drops them). */
const resolveEdges = (
  nodes: Map<string, NodeContent>,
  files: ReadonlyMap<string, string>,
  resolver: LinkResolver,
  collected: Collected,
): void => {
  for (const [uid, content] of nodes) {
    const file = files.get(uid) ?? content.sourcePath ?? uid;
    const edges: NodeEdge[] = [];
    for (const edge of content.edges) {
      // A declared target may be written as a path of the site.
      const targetUid = nodes.has(edge.target)
        ? edge.target
        : edge.origin === 'frontMatter'
          ? resolver.uidOfPath(edge.target)
          : undefined;
      const target = targetUid === undefined ? undefined : nodes.get(targetUid);
      if (!target || targetUid === undefined) {
        if (edge.origin === 'frontMatter')
          collected.dangling.push({ file, uid, target: edge.target, edgeType: edge.type });
        continue;
      }
      const spec = edgeSpec(edge.type);
      if (spec && spec.to.length > 0 && !spec.to.includes(target.label)) {
        collected.errors.push({
          file,
          field: edge.type,
          reason: `target ${targetUid} is ${withArticle(target.label)}; ${edge.type} must point at ${spec.to.join(' or ')}`,
          fix: `point ${edge.type} at ${withArticle(spec.to[0] ?? 'node')}, or use relatedTo`,
        });
      } else if (spec && spec.from.length > 0 && !spec.from.includes(content.label)) {
        collected.errors.push({
          file,
          field: edge.type,
          reason: `${withArticle(content.label)} cannot have ${edge.type} edges (allowed from ${spec.from.join(', ')})`,
          fix: 'use relatedTo, or change the label',
        });
      } else if (targetUid === uid) {
        collected.errors.push({
          file,
          field: edge.type,
          reason: 'a node cannot point at itself',
          fix: `remove ${uid} from ${edge.type}`,
        });
      } else {
        edges.push({ ...edge, target: targetUid });
      }
    }
    nodes.set(uid, { ...content, edges });
  }
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
  const empty = (reason: string): LoadedCorpus => ({
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
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) return empty('not a folder');
  const files = await listFiles(root);
  const site = await detectSite(root, files);
  const pageFiles: string[] = [];
  const jsonFiles: string[] = [];
  for (const file of files) {
    if (PAGE_FILE.test(file)) {
      const partial = site.partial(file);
      if (partial) collected.skipped.push({ file, reason: partial });
      else pageFiles.push(file);
    } else if (file.endsWith('.json') && !site.configFiles.has(file)) jsonFiles.push(file);
  }
  const locations = locatePages(site, pageFiles);
  const latest = latestVersions(site, locations);
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
  const nodes = new Map<string, NodeContent>();
  const owner = new Map<string, string>();
  const add = (content: NodeContent, file: string): void => {
    const first = owner.get(content.uid);
    if (first !== undefined) {
      collected.errors.push({
        file,
        field: 'uid',
        reason: `"${content.uid}" is already used by ${first}`,
        fix: 'give one of the two another uid (or, for pages without one, an id: or slug:)',
      });
      return;
    }
    owner.set(content.uid, file);
    nodes.set(content.uid, content);
  };
  for (const node of built) add(node.content, node.draft.file);
  const resolver = createLinkResolver({
    files,
    baseUrl: options.baseUrl ?? site.baseUrl,
    contentRoot: site.contentRoot,
    redirects: site.redirects,
    latest,
    pages: built.map(({ draft, content }) => ({
      uid: content.uid,
      file: draft.file,
      path: content.path,
      anchors: [...(content.sections ?? []).map((s) => s.anchor), ...draft.parsed.anchors],
    })),
    uids: new Set(nodes.keys()),
  });
  const used = new Set<string>();
  for (const node of built) {
    const current = nodes.get(node.content.uid);
    if (current !== node.content) continue; // a duplicate uid, reported above
    const xrefs = linkEdges(node, resolver, collected);
    nodes.set(node.content.uid, { ...node.content, edges: [...node.content.edges, ...xrefs] });
    for (const sample of await extractSamples(root, node, used, collected))
      add(sample, node.draft.file);
  }
  resolveEdges(nodes, owner, resolver, collected);
  const handled = new Set([...pageFiles, ...jsonFiles, ...collected.skipped.map((s) => s.file)]);
  for (const file of files) {
    if (handled.has(file) || used.has(file) || site.configFiles.has(file)) continue;
    const skipped = skipReason(file, site);
    if (skipped) collected.skipped.push(skipped);
  }

  const mode = options.checkSamples ?? 'syntax';
  if (collected.errors.length === 0 && mode !== false) {
    const samples = [...nodes.values()].filter(
      (node) =>
        node.label === 'CodeSample' && CHECKED_LANGUAGES.has(String(node.attributes.language)),
    );
    const known = new Map<string, SampleCheck>();
    const toCheck = samples.filter((sample) => {
      const check = options.knownCheck?.(
        sample.uid,
        String(sample.attributes.language),
        sample.body,
      );
      if (check?.mode === mode || (check && mode === 'syntax')) known.set(sample.uid, check);
      return !known.has(sample.uid);
    });
    const checked = await checkSamples(
      toCheck.map((s) => ({ uid: s.uid, language: String(s.attributes.language), code: s.body })),
      mode,
    );
    for (const sample of samples) {
      const check = known.get(sample.uid) ?? checked?.get(sample.uid);
      if (!check) continue;
      nodes.set(sample.uid, {
        ...sample,
        attributes: {
          ...sample.attributes,
          compiled: check.compiled,
          check: check.mode,
          ...(check.compiled ? {} : { diagnostics: [...check.diagnostics] }),
        },
      });
    }
  }
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
    baseUrl: options.baseUrl ?? site.baseUrl,
  };
};
