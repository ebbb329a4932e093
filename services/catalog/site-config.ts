import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ConfigNote, Generator, Redirect } from './site.js';
import {
  isRecord,
  navCollector,
  walkMintlify,
  walkMkdocsNav,
  type NavCollector,
} from './site-navigation.js';
import type { DocusaurusLayout } from './site-docusaurus.js';
import { readDocusaurusSite } from './site-docusaurus-read.js';
import { readDocfxLayout, type DocfxLayout } from './site-docfx.js';
import { walkTocFile } from './site-toc.js';
import { VERSION_NAME } from './site-versions.js';

// Each generator's configuration files, read into one draft of the site.

const CODE_CONFIGS: readonly { readonly pattern: RegExp; readonly generator: Generator }[] = [
  { pattern: /^sidebars\.(js|mjs|cjs|ts|json)$/, generator: 'docusaurus' },
  { pattern: /^\.vitepress\/config\.(js|mjs|mts|ts)$/, generator: 'vitepress' },
  { pattern: /^astro\.config\.(js|mjs|ts)$/, generator: 'markdown' },
];

const readText = async (root: string, file: string): Promise<string | undefined> =>
  readFile(join(root, file), 'utf8').catch(() => undefined);

const posixDir = (file: string): string =>
  file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';

export const withPrefix = (dir: string): string => (dir === '' ? '' : `${dir}/`);

/** What the configuration files said so far; each reader below adds to it. */
export class SiteDraft {
  readonly notes: ConfigNote[] = [];
  readonly configFiles = new Set<string>();
  readonly nav: NavCollector = navCollector();
  readonly declaredLatest = new Set<string>();
  declaredVersions: string[] = [];
  generator: Generator = 'markdown';
  contentRoot = '';
  /** Folder of the shallowest docfx.json (`~/` paths are relative to it), when there is one. */
  docfxRoot: string | undefined;
  /** docfx.json's build layout (routes, excluded files, monikers), when it declares one. */
  docfx: DocfxLayout | undefined;
  baseUrl: string | undefined;
  /** Docusaurus docs and blog folders and their routes, when the site is one. */
  docusaurus: DocusaurusLayout | undefined;
  readonly redirects: Redirect[] = [];

  /** Marks `file` as configuration, with what was made of it. */
  config(file: string, read: boolean, reason: string, fix?: string): void {
    this.configFiles.add(file);
    this.notes.push(fix === undefined ? { file, read, reason } : { file, read, reason, fix });
  }
}

/** Configuration written as code (sidebars.js, docusaurus.config.js, …): named, not run. */
export const noteCodeConfigs = (draft: SiteDraft, files: readonly string[]): void => {
  for (const file of files) {
    const code = CODE_CONFIGS.find(({ pattern }) => pattern.test(file));
    if (!code) continue;
    if (draft.generator === 'markdown') draft.generator = code.generator;
    draft.config(
      file,
      false,
      'site configuration written as code: not run, so its navigation and titles are not read',
      'titles come from front matter or the first heading; set title: in front matter where a page needs another',
    );
  }
};

/** Mintlify's docs.json or mint.json: navigation, the default version, redirects, versions. */
export const readMintlify = async (
  draft: SiteDraft,
  root: string,
  mintlify: string,
): Promise<void> => {
  draft.generator = 'mintlify';
  const text = await readText(root, mintlify);
  try {
    const parsed: unknown = JSON.parse(text ?? '');
    walkMintlify(
      isRecord(parsed) ? (parsed.navigation ?? parsed) : parsed,
      [],
      draft.nav,
      (name, isDefault, pages) => {
        if (!isDefault) return;
        // The version's folder: the segment its pages share that names a version.
        const segments = pages.map((page) => page.split('/').find((s) => VERSION_NAME.test(s)));
        const folder = segments.find((segment) => segment !== undefined);
        draft.declaredLatest.add(folder ?? name);
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
          draft.redirects.push({ source: redirect.source, destination: redirect.destination });
        }
      }
    }
    if (isRecord(parsed) && Array.isArray(parsed.versions)) {
      draft.declaredVersions = parsed.versions.filter((v): v is string => typeof v === 'string');
    }
    draft.config(
      mintlify,
      true,
      'Mintlify site configuration: navigation order, groups and the default version read',
    );
  } catch (error) {
    draft.config(
      mintlify,
      false,
      `not valid JSON (${(error as Error).message}); navigation not read`,
      `fix the JSON of ${mintlify}`,
    );
  }
};

/** mkdocs.yml: docs_dir, site_url and nav. */
export const readMkdocs = async (draft: SiteDraft, root: string, mkdocs: string): Promise<void> => {
  draft.generator = 'mkdocs';
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
    draft.contentRoot =
      typeof data.docs_dir === 'string' ? data.docs_dir.replace(/^\.\/|\/$/g, '') : 'docs';
    if (typeof data.site_url === 'string') draft.baseUrl = data.site_url;
    walkMkdocsNav(data.nav, [], draft.nav, withPrefix(draft.contentRoot));
    draft.config(mkdocs, true, 'MkDocs configuration: docs_dir, site_url and nav titles read');
  } catch (error) {
    draft.config(
      mkdocs,
      false,
      `not valid YAML (${(error as Error).message.split('\n')[0] ?? ''}); nav not read`,
      `fix the YAML of ${mkdocs}`,
    );
  }
};

/** DocFX: docfx.json's build layout, then every toc.yml (the root one first) for titles and order. */
export const readDocfx = async (
  draft: SiteDraft,
  root: string,
  files: readonly string[],
  fileSet: ReadonlySet<string>,
): Promise<void> => {
  const byDepth = (a: string, b: string): number =>
    a.split('/').length - b.split('/').length || (a < b ? -1 : 1);
  const docfx = files.filter((file) => /(^|\/)docfx\.json$/.test(file)).sort(byDepth)[0];
  if (docfx !== undefined && fileSet.has(docfx)) {
    draft.generator = 'docfx';
    draft.docfxRoot = posixDir(docfx);
    let parsed: unknown;
    try {
      parsed = JSON.parse((await readText(root, docfx)) ?? '');
    } catch (error) {
      parsed = undefined;
      draft.config(
        docfx,
        false,
        `not valid JSON (${(error as Error).message}); every Markdown file under its folder is a page routed by its path`,
        `fix the JSON of ${docfx}`,
      );
    }
    if (parsed !== undefined) {
      const { layout, problems } = readDocfxLayout(parsed, draft.docfxRoot);
      draft.docfx = layout;
      draft.config(
        docfx,
        layout !== undefined,
        layout
          ? `DocFX build configuration: routes, excluded files and monikers read${problems.length > 0 ? ` (${problems.join('; ')})` : ''}`
          : `DocFX build configuration without a usable layout (${problems.join('; ')}): every Markdown file under its folder is a page routed by its path`,
      );
    }
  }
  const tocs = files.filter((f) => /(^|\/)toc\.ya?ml$/i.test(f)).sort(byDepth);
  const parsedTocs = new Map<string, unknown>();
  for (const file of tocs) {
    if (draft.generator === 'markdown') draft.generator = 'docfx';
    try {
      parsedTocs.set(file, parseYaml((await readText(root, file)) ?? '', { logLevel: 'silent' }));
      draft.config(file, true, 'table of contents: titles and order read');
    } catch (error) {
      draft.config(
        file,
        false,
        `not valid YAML (${(error as Error).message.split('\n')[0] ?? ''})`,
        `fix the YAML of ${file}`,
      );
    }
  }
  const context = {
    nav: draft.nav,
    docfxRoot: draft.docfxRoot,
    loadToc: (file: string): unknown => parsedTocs.get(file),
    visited: new Set<string>(),
  };
  // The shallowest toc first: the tocs it points to are walked in place, in its order.
  for (const file of parsedTocs.keys()) walkTocFile(file, [], context);
};

/** Docusaurus: its configuration and versions (site-docusaurus-read.ts), every _category_.json. */
export const readDocusaurus = async (
  draft: SiteDraft,
  root: string,
  files: readonly string[],
  fileSet: ReadonlySet<string>,
): Promise<void> => {
  await readDocusaurusSite(draft, root, files, fileSet);
  for (const file of files.filter((f) => /(^|\/)_category_\.json$/.test(f))) {
    try {
      const parsed: unknown = JSON.parse((await readText(root, file)) ?? '');
      const label = isRecord(parsed) && typeof parsed.label === 'string' ? parsed.label : undefined;
      if (label) draft.nav.add(`${posixDir(file)}/index`, label, []);
      draft.config(file, true, 'Docusaurus category: label read');
    } catch (error) {
      draft.config(
        file,
        false,
        `not valid JSON (${(error as Error).message})`,
        `fix the JSON of ${file}`,
      );
    }
  }
};
