import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readDocusaurusConfig, type DocusaurusConfig } from './docusaurus-config.js';
import type { SiteDraft } from './site-config.js';
import { docusaurusLayout, versionsFileOf, type DocusaurusLayout } from './site-docusaurus.js';

// Finding and reading a Docusaurus site's configuration wherever it lives in the folder.

const CONFIG_FILE = /(^|\/)docusaurus\.config\.(js|mjs|cjs|ts|mts)$/;
const DEFAULT_DOCS = {
  id: 'default',
  path: 'docs',
  routeBasePath: 'docs',
  lastVersion: undefined,
  versions: new Map(),
  onlyIncludeVersions: undefined,
} as const;
const DEFAULT_BLOG = { path: 'blog', routeBasePath: 'blog' } as const;

const dirOf = (file: string): string =>
  file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';

/** The shallowest docusaurus.config.* at most two folders deep, outside node_modules. */
export const findDocusaurusConfig = (files: readonly string[]): string | undefined =>
  files
    .filter((file) => CONFIG_FILE.test(file))
    .filter((file) => file.split('/').length <= 3 && !file.split('/').includes('node_modules'))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1))[0];

const readJsonList = async (
  draft: SiteDraft,
  root: string,
  file: string,
): Promise<string[] | undefined> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(root, file), 'utf8'));
    if (!Array.isArray(parsed)) throw new Error('not a list of version names');
    draft.config(file, true, 'Docusaurus versions: the first is the latest release');
    return parsed.map(String);
  } catch (error) {
    draft.config(
      file,
      false,
      `not read (${(error as Error).message}); its versions are not told apart`,
      `fix the JSON of ${file}`,
    );
    return undefined;
  }
};

const describe = (layout: DocusaurusLayout): string => {
  const docs = layout.docs.map((d) => {
    const current = d.versions.find((v) => v.name === 'current');
    const released = d.versions.filter((v) => v.name !== 'current').map((v) => v.name);
    const versions = released.length > 0 ? `, versions ${released.join(', ')}` : '';
    return `docs in ${current?.dir || '.'} served at /${d.routeBasePath}${versions} (last: ${d.lastVersion})`;
  });
  const blogs = layout.blogs.map((b) => `blog in ${b.dir || '.'} served at /${b.routeBasePath}`);
  return [...docs, ...blogs].join('; ');
};

/** Marks sidebars, versioned sidebars and blog data beside the site as configuration. */
const markDataFiles = (draft: SiteDraft, layout: DocusaurusLayout, files: readonly string[]) => {
  const prefix = layout.siteDir === '' ? '' : `${layout.siteDir}/`;
  for (const file of files) {
    if (!file.startsWith(prefix) || draft.configFiles.has(file)) continue;
    const rest = file.slice(prefix.length);
    if (/^sidebars[\w-]*\.(js|mjs|cjs|ts|mts|json)$/.test(rest))
      draft.config(file, false, 'Docusaurus sidebars: not read; titles come from the pages');
    else if (/^([\w-]+_)?versioned_sidebars\//.test(rest)) draft.configFiles.add(file);
  }
  for (const blog of layout.blogs) {
    for (const name of ['authors.yml', 'authors.yaml', 'authors.json', 'tags.yml', 'tags.yaml']) {
      const file = blog.dir === '' ? name : `${blog.dir}/${name}`;
      if (files.includes(file)) draft.config(file, false, 'Docusaurus blog data: not a page');
    }
  }
};

/**
 * Docusaurus: its configuration wherever it lives (read statically, never run), or a root-level
 * versions.json with versioned_docs/ when there is none. Sets the site's layout, versions,
 * latest version and public URL. Does nothing for a folder that is not a Docusaurus site.
 */
export const readDocusaurusSite = async (
  draft: SiteDraft,
  root: string,
  files: readonly string[],
  fileSet: ReadonlySet<string>,
): Promise<void> => {
  const configFile = findDocusaurusConfig(files);
  const legacy =
    fileSet.has('versions.json') && files.some((file) => file.startsWith('versioned_docs/'));
  if (configFile === undefined && !legacy) return;
  draft.generator = 'docusaurus';
  const siteDir = configFile === undefined ? '' : dirOf(configFile);
  let config: DocusaurusConfig | undefined;
  if (configFile !== undefined) {
    const text = await readFile(join(root, configFile), 'utf8').catch(() => '');
    config = readDocusaurusConfig(text);
  }
  const released = new Map<string, readonly string[]>();
  for (const docs of config?.docs ?? [DEFAULT_DOCS]) {
    const list = versionsFileOf(siteDir, docs);
    if (!fileSet.has(list)) continue;
    const names = await readJsonList(draft, root, list);
    if (names) released.set(docs.id, names);
  }
  const layout = docusaurusLayout(siteDir, config, released, {
    docs: DEFAULT_DOCS,
    blog: DEFAULT_BLOG,
  });
  draft.docusaurus = layout;
  const first = layout.docs.find((d) => d.versioned);
  if (first) {
    draft.declaredVersions = first.versions.map((v) => v.moniker);
    for (const docs of layout.docs.filter((d) => d.versioned)) {
      const last = docs.versions.find((v) => v.name === docs.lastVersion);
      if (last) draft.declaredLatest.add(last.moniker);
    }
  }
  if (draft.baseUrl === undefined && layout.baseUrl !== undefined) draft.baseUrl = layout.baseUrl;
  markDataFiles(draft, layout, files);
  if (configFile === undefined) return;
  const computed = config?.computed ?? [];
  const reason = config
    ? `Docusaurus configuration read statically (not run): ${describe(layout)}${
        computed.length > 0
          ? `. Computed in code, so the defaults stand for: ${computed.join('; ')}`
          : ''
      }`
    : `Docusaurus configuration: no configuration object found in the code; defaults used (${describe(layout)})`;
  const urlComputed = layout.baseUrl === undefined;
  draft.config(
    configFile,
    config !== undefined,
    reason,
    urlComputed
      ? 'pass --base-url with the site’s public URL so its URLs resolve'
      : computed.length > 0
        ? 'write those settings as literals if the defaults are wrong'
        : undefined,
  );
};
