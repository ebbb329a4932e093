import { posix } from 'node:path';
import { parseMonikerRange, type MonikerRange } from './moniker-range.js';

// The DocFX build layout (docfx.json `build.content`): which Markdown files are pages and the
// route each is published at. A route is the file's path relative to its content entry's `src`,
// under the entry's `dest`; files the entry does not take (`exclude`, or matched by no `files`
// pattern) are not pages, though pages may still include them.

export interface DocfxContent {
  /** Folder relative to the corpus root ('' for the root). */
  readonly src: string;
  /** Route prefix ('' for none). */
  readonly dest: string;
  readonly files: readonly RegExp[];
  readonly exclude: readonly RegExp[];
}

export interface DocfxLayout {
  /** Folder of docfx.json, relative to the corpus root ('' for the root). */
  readonly root: string;
  readonly content: readonly DocfxContent[];
  /** `build.groups.*.moniker_range`: the monikers the whole build is published in. */
  readonly monikerRanges: readonly MonikerRange[];
}

const escape = (text: string): string => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** A DocFX (minimatch-style) glob as an anchored pattern over `/`-separated paths. */
export const globToRegExp = (glob: string): RegExp => {
  let out = '';
  const text = glob.replace(/^\.\//, '');
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? '';
    if (text.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (text.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else out += escape(char);
  }
  return new RegExp(`^${out}$`, 'i');
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : [];

const folder = (root: string, relative: string): string =>
  posix
    .normalize(posix.join(root, relative))
    .replace(/^\.(\/|$)/, '')
    .replace(/\/+$/, '');

/**
 * The layout a parsed docfx.json declares, or why there is none (then every Markdown file under
 * its folder is a page routed by its path, as before).
 */
export const readDocfxLayout = (
  parsed: unknown,
  root: string,
): { layout: DocfxLayout | undefined; problems: string[] } => {
  const problems: string[] = [];
  const build = isRecord(parsed) && isRecord(parsed.build) ? parsed.build : undefined;
  const entries = build && Array.isArray(build.content) ? build.content : [];
  const content: DocfxContent[] = [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const files = strings(entry.files);
    if (files.length === 0) continue;
    content.push({
      src: folder(root, typeof entry.src === 'string' ? entry.src : '.'),
      dest: typeof entry.dest === 'string' ? folder('', entry.dest) : '',
      files: files.map(globToRegExp),
      exclude: strings(entry.exclude).map(globToRegExp),
    });
  }
  const monikerRanges: MonikerRange[] = [];
  const groups = build && isRecord(build.groups) ? build.groups : {};
  for (const [name, group] of Object.entries(groups)) {
    if (!isRecord(group) || typeof group.moniker_range !== 'string') continue;
    const range = parseMonikerRange(group.moniker_range);
    if (range.ok) monikerRanges.push(range.range);
    else problems.push(`group ${name}: ${range.reason}`);
  }
  if (content.length === 0) problems.push('no build.content entry with files');
  return {
    layout: content.length === 0 ? undefined : { root, content, monikerRanges },
    problems,
  };
};

/**
 * Where DocFX publishes a corpus file: its route with extension (`get-started/install.md`), or
 * undefined when no content entry takes it.
 */
export const docfxRouteFile = (layout: DocfxLayout, file: string): string | undefined => {
  for (const entry of layout.content) {
    const prefix = entry.src === '' ? '' : `${entry.src}/`;
    if (!file.startsWith(prefix)) continue;
    const inner = file.slice(prefix.length);
    if (!entry.files.some((glob) => glob.test(inner))) continue;
    if (entry.exclude.some((glob) => glob.test(inner))) continue;
    return entry.dest === '' ? inner : `${entry.dest}/${inner}`;
  }
  return undefined;
};

/** Why DocFX does not build a Markdown file as a page, or undefined when it does. */
export const docfxPartialReason = (layout: DocfxLayout, file: string): string | undefined =>
  docfxRouteFile(layout, file) === undefined
    ? 'not built as a page by docfx.json (build.content excludes it or names no pattern for it): includable, not a page itself'
    : undefined;
