/**
 * The generators' Markdown dialects, rewritten to CommonMark before parsing: MDX (ESM lines,
 * JSX components, `{expressions}`), VitePress/Docusaurus `:::` containers, MkDocs admonitions
 * and tabs (`!!! note`, `??? tip`, `=== "Tab"`), pymdownx blocks (`/// tip`), heading ids
 * (`## Title {#id}`) and include lines (`<<<`, `--8<--`, `{* … *}`, `[!INCLUDE …]`).
 *
 * Components become their text: the tags go, a `title`/`label` becomes a bold line, an `href`
 * a Markdown link, so the page reads as its site shows it and its links are kept. Every
 * rewrite keeps the line count (a multi-line tag becomes its replacement and empty lines), so
 * a line of the result is the same line of the file.
 *
 * Why not the MDX parser (micromark + mdast-util-mdx): it is exact, but it parsed real MDX
 * pages at 0.14 MB/s on the reference machine against 3.6 MB/s for markdown-it on the same
 * pages, which would put 10,000 pages far past the ingest budget. MDX that builds on its site
 * is well-formed, so a tag scanner that respects quotes, braces and code suffices here.
 */
import { parseCodeIncludeLine } from './docfx-code.js';
import { isMonikerMarker } from './moniker-range.js';

export interface DialectOptions {
  /** Treat the text as MDX: ESM lines, `{expressions}` and every tag are syntax, not text. */
  readonly mdx: boolean;
}

export interface Include {
  /** 0-based line in the text. */
  readonly line: number;
  /** As written (`../../docs_src/a.py`, `@/snippets/b.js`). */
  readonly target: string;
  readonly syntax: string;
  /** A DocFX `[!code-<lang>[title](…)]` line: its language as written and its title. */
  readonly language?: string;
  readonly title?: string;
}

export interface DialectResult {
  readonly text: string;
  /** Explicit heading ids by 0-based line (`{#id}` / `{ #id }` after a heading). */
  readonly headingIds: ReadonlyMap<number, string>;
  /** Include lines (removed from the text; the caller resolves or reports them). */
  readonly includes: readonly Include[];
  /** Anchors declared by HTML/JSX `id` or `name` attributes (`<a id="x">`). */
  readonly anchors: readonly string[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})/;

/** Lines of the text with, for each, whether it is inside a fenced code block. */
export const fencedLines = (lines: readonly string[]): boolean[] => {
  const inside: boolean[] = [];
  let open: { char: string; length: number } | undefined;
  for (const line of lines) {
    const match = FENCE.exec(line);
    if (open) {
      inside.push(true);
      if (
        match?.[2]?.[0] === open.char &&
        match[2].length >= open.length &&
        line.trim() === match[2]
      ) {
        open = undefined;
      }
      continue;
    }
    if (match?.[2]) {
      open = { char: match[2][0] ?? '`', length: match[2].length };
      inside.push(true);
      continue;
    }
    inside.push(false);
  }
  return inside;
};

const indentOf = (line: string): number => /^ */.exec(line.replace(/\t/g, '    '))?.[0].length ?? 0;

const titleCase = (word: string): string =>
  word.charAt(0).toUpperCase() + word.slice(1).replace(/[-_]/g, ' ');

/** A bold title line, or an empty line when there is nothing to show. */
const titleLine = (indent: string, title: string | undefined): string =>
  title && title.trim() !== '' ? `${indent}**${title.trim()}**` : '';

// MkDocs (Python-Markdown admonition, pymdownx details and tabbed): a marker line, then a body
// indented four spaces more.
const INDENTED_BLOCK =
  /^(\s*)(?:(!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+"([^"]*)")?|(===\+?)\s+"([^"]*)")\s*$/;

/** Replaces indented admonitions and tabs by a title line and their body, dedented. */
const dedentBlocks = (lines: string[]): void => {
  const fenced = fencedLines(lines);
  for (let i = 0; i < lines.length; i += 1) {
    if (fenced[i]) continue;
    const match = INDENTED_BLOCK.exec(lines[i] ?? '');
    if (!match) continue;
    const indent = match[1] ?? '';
    const base = indentOf(lines[i] ?? '');
    const title = match[5] ? match[6] : (match[4] ?? titleCase(match[3] ?? ''));
    lines[i] = titleLine(indent, title);
    for (let j = i + 1; j < lines.length; j += 1) {
      const line = lines[j] ?? '';
      if (line.trim() === '') continue;
      if (indentOf(line) < base + 4) break;
      lines[j] = line.replace(/\t/g, '    ').slice(4);
    }
  }
};

const COMPONENT_OPEN = /^<([A-Z][\w.]*)(?=[\s/>]|$)/;
const COMPONENT_CLOSE = /^<\/([A-Z][\w.]*)\s*>/;

/**
 * MDX has no indented code: children of a component are often indented (`<Tab>` inside
 * `<Tabs>`), fences too. Each open component's children are dedented by the indentation of
 * its first child line, so CommonMark reads them as MDX does.
 */
const dedentComponentChildren = (lines: string[]): void => {
  const fenced = fencedLines(lines);
  const open: { name: string; childIndent: number | undefined }[] = [];
  let inOpeningTag: { name: string } | undefined;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const trimmed = line.trimStart();
    const top = open.at(-1);
    if (top && trimmed !== '' && !inOpeningTag) {
      top.childIndent ??= indentOf(line);
      const shift = Math.min(top.childIndent, indentOf(line));
      lines[i] = line.replace(/\t/g, '    ').slice(shift);
    }
    if (fenced[i]) continue;
    if (inOpeningTag) {
      if (/\/>\s*$/.test(trimmed)) inOpeningTag = undefined;
      else if (/>\s*$/.test(trimmed)) {
        open.push({ name: inOpeningTag.name, childIndent: undefined });
        inOpeningTag = undefined;
      }
      continue;
    }
    const close = COMPONENT_CLOSE.exec(trimmed);
    if (close) {
      const at = open.map((entry) => entry.name).lastIndexOf(close[1] ?? '');
      if (at !== -1) open.length = at;
      continue;
    }
    const opening = COMPONENT_OPEN.exec(trimmed);
    if (!opening?.[1]) continue;
    const name = opening[1];
    if (trimmed.includes(`</${name}>`)) continue;
    const tagEnd = /(\/?)>\s*$/.exec(trimmed);
    if (!tagEnd) {
      if (!/>/.test(trimmed)) inOpeningTag = { name };
      continue;
    }
    if (tagEnd[1] !== '/') open.push({ name, childIndent: undefined });
  }
};

const CONTAINER_OPEN = /^(\s*)(:{3,})\s*([\w-]+)?\s*(?:\[([^\]]*)\])?\s*(?:\{[^}]*\})?\s*(.*)$/;
const CONTAINER_CLOSE = /^\s*:{3,}\s*$/;
const BLOCK_OPEN = /^(\s*)\/{3,}\s*([\w-]+)(?:\s*\|\s*(.*))?\s*$/;
const BLOCK_CLOSE = /^\s*\/{3,}\s*$/;
const HEADING_ID = /^(\s{0,3}#{1,6}\s.*?)\s*\{\s*#([\w.:-]+)[^}]*\}\s*$/;
const INCLUDES: readonly { readonly pattern: RegExp; readonly syntax: string }[] = [
  { pattern: /^\s*\{\*\s*(\S+).*\*\}\s*$/, syntax: '{* … *}' },
  { pattern: /^\s*-{1,2}8<-{1,2}\s+["']([^"']+)["']\s*$/, syntax: '--8<--' },
  { pattern: /^\s*<<<\s+(\S+?)(?:\{[^}]*\})?(?:\s.*)?$/, syntax: '<<<' },
  { pattern: /^\s*\[!INCLUDE\s*\[[^\]]*\]\(([^)]+)\)\]\s*$/i, syntax: '[!INCLUDE]' },
];
const DROPPED_LINE = /^\s*(\[\[toc\]\]|\[TOC\])\s*$/i;

/** Docusaurus/VitePress containers, pymdownx blocks, heading ids, includes: one line each. */
const rewriteLines = (
  lines: string[],
  headingIds: Map<number, string>,
  includes: Include[],
): void => {
  const fenced = fencedLines(lines);
  for (let i = 0; i < lines.length; i += 1) {
    if (fenced[i]) continue;
    const line = lines[i] ?? '';
    if (/^\s*:::code\s/.test(line)) continue; // DocFX code directives are read as samples
    const code = parseCodeIncludeLine(line);
    if (code) {
      includes.push({ line: i, syntax: '[!code]', ...code });
      lines[i] = /^\s*/.exec(line)?.[0] ?? ''; // its indentation: the code takes its place
      continue;
    }
    const include = INCLUDES.map(({ pattern, syntax }) => ({
      match: pattern.exec(line),
      syntax,
    })).find(({ match }) => match);
    if (include?.match?.[1]) {
      includes.push({ line: i, target: include.match[1], syntax: include.syntax });
      lines[i] = '';
      continue;
    }
    // Learn `::: moniker range` zone markers: the zones are read from the source (moniker-range.ts).
    if (
      DROPPED_LINE.test(line) ||
      CONTAINER_CLOSE.test(line) ||
      BLOCK_CLOSE.test(line) ||
      isMonikerMarker(line)
    ) {
      lines[i] = '';
      continue;
    }
    const container = CONTAINER_OPEN.exec(line);
    if (container?.[3] !== undefined) {
      const [, indent = '', , type = '', label, rest] = container;
      lines[i] = titleLine(indent, label || rest || titleCase(type));
      continue;
    }
    const block = BLOCK_OPEN.exec(line);
    if (block) {
      lines[i] = titleLine(block[1] ?? '', block[3] || titleCase(block[2] ?? ''));
      continue;
    }
    const heading = HEADING_ID.exec(line);
    if (heading?.[1] && heading[2]) {
      headingIds.set(i, heading[2]);
      lines[i] = heading[1];
    }
  }
};

// ---------------------------------------------------------------------------------------------
// JSX and HTML tags

interface Tag {
  readonly name: string;
  readonly closing: boolean;
  readonly selfClosing: boolean;
  /** String values; `{…}` expressions keep their text when they are a plain string literal. */
  readonly attributes: ReadonlyMap<string, string>;
  /** Index just past the `>`. */
  readonly end: number;
}

const NAME = /[A-Za-z][\w.:-]*/y;
const SPACE = /\s*/y;

const matchAt = (pattern: RegExp, text: string, at: number): string | undefined => {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
};

/** Index past a `{…}` expression starting at `at` (strings and nested braces respected). */
const skipExpression = (text: string, at: number): number => {
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    const char = text[i];
    if (char === '"' || char === "'" || char === '`') {
      const close = text.indexOf(char, i + 1);
      if (close === -1) return -1;
      i = close;
    } else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
};

const stringLiteral = (expression: string): string | undefined =>
  /^\{\s*(["'`])([^"'`]*)\1\s*\}$/.exec(expression)?.[2];

/** Parses a tag starting at `at` (`<Name …>`, `</Name>`, `<>`, `</>`); undefined if it is not one. */
const parseTag = (text: string, at: number): Tag | undefined => {
  let i = at + 1;
  const closing = text[i] === '/';
  if (closing) i += 1;
  const name = matchAt(NAME, text, i) ?? '';
  if (name === '' && text[i] !== '>') return undefined;
  i += name.length;
  const attributes = new Map<string, string>();
  for (;;) {
    i += matchAt(SPACE, text, i)?.length ?? 0;
    const char = text[i];
    if (char === undefined) return undefined;
    if (char === '>') return { name, closing, selfClosing: false, attributes, end: i + 1 };
    if (char === '/' && text[i + 1] === '>') {
      return { name, closing, selfClosing: true, attributes, end: i + 2 };
    }
    if (char === '{') {
      // A spread ({...props}) or an expression child of a tag: skipped.
      const end = skipExpression(text, i);
      if (end === -1) return undefined;
      i = end;
      continue;
    }
    const attribute = matchAt(NAME, text, i);
    if (!attribute) return undefined;
    i += attribute.length;
    i += matchAt(SPACE, text, i)?.length ?? 0;
    if (text[i] !== '=') {
      attributes.set(attribute, '');
      continue;
    }
    i += 1;
    i += matchAt(SPACE, text, i)?.length ?? 0;
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, i + 1);
      if (close === -1) return undefined;
      attributes.set(attribute, text.slice(i + 1, close));
      i = close + 1;
    } else if (quote === '{') {
      const end = skipExpression(text, i);
      if (end === -1) return undefined;
      const literal = stringLiteral(text.slice(i, end));
      if (literal !== undefined) attributes.set(attribute, literal);
      i = end;
    } else {
      const bare = /[^\s>]+/y;
      const value = matchAt(bare, text, i) ?? '';
      attributes.set(attribute, value);
      i += value.length;
    }
  }
};

/** JSX components (`Card`, `Tabs.Item`); not HTML (`div`) nor an autolink (`xref:a.b`). */
const isComponent = (name: string): boolean =>
  !name.includes(':') && (/^[A-Z]/.test(name) || /\.[A-Z]/.test(name));
const LINK_ATTRIBUTES = ['href', 'to', 'link', 'url'];
const TEXT_ATTRIBUTES = ['title', 'label', 'heading', 'header', 'question'];

/** What a tag becomes in the text. Anchors (`id`, `name` of an `a`) are collected. */
const renderTag = (tag: Tag, anchors: string[], pendingLinks: (string | undefined)[]): string => {
  if (/^xref:/i.test(tag.name)) return `[${tag.name.slice(5)}](${tag.name})`;
  const id =
    tag.attributes.get('id') ?? (tag.name === 'a' ? tag.attributes.get('name') : undefined);
  if (id && !tag.closing) anchors.push(id);
  if (tag.name === 'a') {
    // <a href="x">text</a> → [text](x)
    if (tag.closing) {
      const href = pendingLinks.pop();
      return href === undefined ? '' : `](${href})`;
    }
    const href = tag.attributes.get('href');
    if (tag.selfClosing) return '';
    pendingLinks.push(href);
    return href === undefined ? '' : '[';
  }
  if (tag.closing || !isComponent(tag.name)) {
    if (tag.name === 'img' || tag.name === 'Image') return tag.attributes.get('alt') ?? '';
    return '';
  }
  const text = TEXT_ATTRIBUTES.map((name) => tag.attributes.get(name)).find((value) => value);
  const href = LINK_ATTRIBUTES.map((name) => tag.attributes.get(name)).find((value) => value);
  if (href) return `[${text ? `**${text}**` : href}](${href})`;
  return text ? `**${text}**` : '';
};

const INLINE_CODE = /(`+)[^\n]*?\1/y;

/**
 * Rewrites the tags (and, in MDX, expressions and ESM lines) outside fenced code and inline
 * code spans. In plain Markdown only component tags (capitalised, as Vue and JSX name them)
 * are rewritten: lower-case HTML is Markdown's own.
 */
const rewriteTags = (lines: string[], options: DialectOptions, anchors: string[]): string[] => {
  const fenced = fencedLines(lines);
  const out: string[] = [];
  const pendingLinks: (string | undefined)[] = [];
  let skipEsm = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (fenced[i]) {
      out.push(line);
      skipEsm = false;
      continue;
    }
    if (options.mdx) {
      if (skipEsm) {
        if (line.trim() === '') skipEsm = false;
        out.push('');
        continue;
      }
      if (/^(import|export)\s/.test(line)) {
        skipEsm = true;
        out.push('');
        continue;
      }
    }
    out.push(line);
  }
  // Tags and expressions may span lines: work on the joined text, keeping newlines.
  const text = out.join('\n');
  // Start → end (exclusive) of each run of fenced lines, copied as they are.
  const fencedRuns = new Map<number, number>();
  let offset = 0;
  let runStart: number | undefined;
  out.forEach((line, index) => {
    if (fenced[index]) runStart ??= offset;
    else if (runStart !== undefined) {
      fencedRuns.set(runStart, offset);
      runStart = undefined;
    }
    offset += line.length + 1;
  });
  if (runStart !== undefined) fencedRuns.set(runStart, text.length);
  let result = '';
  let i = 0;
  const keepNewlines = (from: number, to: number): string =>
    text.slice(from, to).replace(/[^\n]/g, '');
  // Text up to the next character that can start something is copied in one piece.
  const special = options.mdx ? /[`\\{<]/g : /[`\\<]/g;
  const runStarts = [...fencedRuns.keys()];
  let nextRun = 0;
  while (i < text.length) {
    const runEnd = fencedRuns.get(i);
    if (runEnd !== undefined) {
      result += text.slice(i, runEnd);
      i = runEnd;
      continue;
    }
    while (nextRun < runStarts.length && (runStarts[nextRun] as number) <= i) nextRun += 1;
    special.lastIndex = i;
    const stop = Math.min(special.exec(text)?.index ?? text.length, runStarts[nextRun] ?? Infinity);
    if (stop > i) {
      result += text.slice(i, stop);
      i = stop;
      continue;
    }
    const char = text[i] as string;
    if (char === '`') {
      const span = matchAt(INLINE_CODE, text, i);
      if (span) {
        result += span;
        i += span.length;
        continue;
      }
    }
    if (char === '\\' && i + 1 < text.length) {
      result += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (options.mdx && char === '{') {
      const end = skipExpression(text, i);
      if (end !== -1) {
        const literal = stringLiteral(text.slice(i, end));
        result += (literal ?? '') + keepNewlines(i, end);
        i = end;
        continue;
      }
    }
    if (char === '<' && text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      const stop = end === -1 ? text.length : end + 3;
      result += options.mdx ? keepNewlines(i, stop) : text.slice(i, stop);
      i = stop;
      continue;
    }
    if (char === '<') {
      const tag = parseTag(text, i);
      if (tag && (options.mdx || isComponent(tag.name))) {
        result += renderTag(tag, anchors, pendingLinks) + keepNewlines(i, tag.end);
        i = tag.end;
        continue;
      }
      if (tag && !tag.closing) {
        const id =
          tag.attributes.get('id') ?? (tag.name === 'a' ? tag.attributes.get('name') : undefined);
        if (id) anchors.push(id);
      }
    }
    result += char;
    i += 1;
  }
  return result.split('\n');
};

export const rewriteDialects = (text: string, options: DialectOptions): DialectResult => {
  const lines = text.split(/\r?\n/);
  const headingIds = new Map<number, string>();
  const includes: Include[] = [];
  const anchors: string[] = [];
  dedentBlocks(lines);
  if (options.mdx) dedentComponentChildren(lines);
  rewriteLines(lines, headingIds, includes);
  const rewritten = rewriteTags(lines, options, anchors);
  return { text: rewritten.join('\n'), headingIds, includes, anchors };
};
