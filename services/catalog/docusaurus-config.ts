import { Computed, isObject, readObjectLiterals, type StaticValue } from './static-js.js';

// What a docusaurus.config.* says about where content lives and how it is routed, read
// statically (the file is code and is never run). Values it computes fall back to Docusaurus's
// defaults, and each such fallback is named so the report can say so.

export interface DocusaurusVersionOptions {
  readonly path?: string;
  readonly label?: string;
}

export interface DocsPluginOptions {
  /** Plugin instance id: `default` for the preset's docs. */
  readonly id: string;
  /** Folder of the current version, relative to the config's folder. */
  readonly path: string;
  readonly routeBasePath: string;
  readonly lastVersion: string | undefined;
  readonly versions: ReadonlyMap<string, DocusaurusVersionOptions>;
  readonly onlyIncludeVersions: readonly string[] | undefined;
}

export interface BlogPluginOptions {
  readonly id: string;
  readonly path: string;
  readonly routeBasePath: string;
}

export interface DocusaurusConfig {
  readonly url: string | undefined;
  readonly baseUrl: string | undefined;
  readonly docs: readonly DocsPluginOptions[];
  readonly blogs: readonly BlogPluginOptions[];
  /** Settings that are computed in the code, so their defaults were used instead. */
  readonly computed: readonly string[];
}

const DOCS_PLUGIN = /(^|[/-])(content-docs|plugin-content-docs)$/;
const BLOG_PLUGIN = /(^|[/-])(content-blog|plugin-content-blog)$/;
const CLASSIC_PRESET = /(^|[/-])(classic|preset-classic)$/;

/** A string setting: its value, the default when absent, or the default noted when computed. */
const stringSetting = (
  options: Record<string, StaticValue>,
  key: string,
  fallback: string,
  where: string,
  computed: string[],
): string => {
  const value = options[key];
  if (typeof value === 'string') return value;
  if (value instanceof Computed) computed.push(`${where}.${key} (${value.text})`);
  return fallback;
};

const readVersions = (
  value: StaticValue | undefined,
): ReadonlyMap<string, DocusaurusVersionOptions> => {
  const versions = new Map<string, DocusaurusVersionOptions>();
  if (!isObject(value)) return versions;
  for (const [name, options] of Object.entries(value)) {
    if (!isObject(options)) continue;
    const { path, label } = options;
    versions.set(name, {
      ...(typeof path === 'string' ? { path } : {}),
      ...(typeof label === 'string' ? { label } : {}),
    });
  }
  return versions;
};

const readDocs = (
  options: Record<string, StaticValue>,
  where: string,
  computed: string[],
): DocsPluginOptions => {
  const id = typeof options.id === 'string' ? options.id : 'default';
  const lastVersion = options.lastVersion;
  if (lastVersion instanceof Computed) computed.push(`${where}.lastVersion (${lastVersion.text})`);
  const only = options.onlyIncludeVersions;
  if (only instanceof Computed) computed.push(`${where}.onlyIncludeVersions (${only.text})`);
  return {
    id,
    path: stringSetting(options, 'path', id === 'default' ? 'docs' : id, where, computed),
    routeBasePath: stringSetting(options, 'routeBasePath', 'docs', where, computed),
    lastVersion: typeof lastVersion === 'string' ? lastVersion : undefined,
    versions: readVersions(options.versions),
    onlyIncludeVersions: Array.isArray(only)
      ? only.filter((v): v is string => typeof v === 'string')
      : undefined,
  };
};

const readBlog = (
  options: Record<string, StaticValue>,
  where: string,
  computed: string[],
): BlogPluginOptions => {
  const id = typeof options.id === 'string' ? options.id : 'default';
  return {
    id,
    path: stringSetting(options, 'path', id === 'default' ? 'blog' : id, where, computed),
    routeBasePath: stringSetting(options, 'routeBasePath', 'blog', where, computed),
  };
};

/** `'name'` or `['name', options]`: the entry's name (when static) and options. */
const entryOf = (
  entry: StaticValue,
): { name: string | undefined; options: Record<string, StaticValue> } => {
  if (typeof entry === 'string') return { name: entry, options: {} };
  if (Array.isArray(entry)) {
    const [name, options] = entry as readonly StaticValue[];
    return {
      name: typeof name === 'string' ? name : undefined,
      options: isObject(options) ? options : {},
    };
  }
  return { name: undefined, options: {} };
};

/** The configuration object: the literal that names the most top-level Docusaurus keys. */
const configObject = (source: string): Record<string, StaticValue> | undefined => {
  const keys = ['presets', 'plugins', 'baseUrl', 'url', 'title', 'themeConfig'];
  let best: Record<string, StaticValue> | undefined;
  let bestScore = 0;
  for (const object of readObjectLiterals(source)) {
    const score = keys.filter((key) => key in object).length;
    if (score > bestScore) [best, bestScore] = [object, score];
  }
  return bestScore >= 2 ? best : undefined;
};

/**
 * The docs and blog instances a Docusaurus configuration declares, and its public URL.
 * Undefined when no configuration object can be found in the text at all.
 */
export const readDocusaurusConfig = (source: string): DocusaurusConfig | undefined => {
  const config = configObject(source);
  if (!config) return undefined;
  const computed: string[] = [];
  const docs: DocsPluginOptions[] = [];
  const blogs: BlogPluginOptions[] = [];
  const presets = Array.isArray(config.presets) ? (config.presets as StaticValue[]) : [];
  if (config.presets instanceof Computed) computed.push(`presets (${config.presets.text})`);
  presets.forEach((entry, index) => {
    const { name, options } = entryOf(entry);
    // A preset named in code (`require.resolve(…)`) is taken for classic when it has docs: or blog:.
    if (name !== undefined && !CLASSIC_PRESET.test(name)) return;
    if (name === undefined && !('docs' in options) && !('blog' in options)) return;
    if (options.docs !== false)
      docs.push(
        readDocs(isObject(options.docs) ? options.docs : {}, `presets[${index}].docs`, computed),
      );
    if (options.blog !== false)
      blogs.push(
        readBlog(isObject(options.blog) ? options.blog : {}, `presets[${index}].blog`, computed),
      );
  });
  const plugins = Array.isArray(config.plugins) ? (config.plugins as StaticValue[]) : [];
  plugins.forEach((entry, index) => {
    const { name, options } = entryOf(entry);
    if (name === undefined) return;
    if (DOCS_PLUGIN.test(name)) docs.push(readDocs(options, `plugins[${index}]`, computed));
    if (BLOG_PLUGIN.test(name)) blogs.push(readBlog(options, `plugins[${index}]`, computed));
  });
  const url = config.url;
  const baseUrl = config.baseUrl;
  if (url instanceof Computed) computed.push(`url (${url.text})`);
  if (baseUrl instanceof Computed) computed.push(`baseUrl (${baseUrl.text})`);
  return {
    url: typeof url === 'string' ? url : undefined,
    baseUrl: typeof baseUrl === 'string' ? baseUrl : undefined,
    docs,
    blogs,
    computed,
  };
};
