import GithubSlugger from 'github-slugger';
import { partialUses, type PartialUse } from './mdx-partial-uses.js';
import markdownIt from 'markdown-it';
import type { MarkdownIt, Token } from 'markdown-it';
import { parse as parseYaml } from 'yaml';
import { rewriteDialects, type Include } from './dialects.js';
import { findMonikerZones, type MonikerZone } from './moniker-range.js';

/**
 * One documentation page read as its site shows it: optional YAML front matter, then Markdown
 * or MDX in any of the common generators' dialects (see dialects.ts), parsed with markdown-it
 * (CommonMark + tables). The result is the page's rendered Markdown body (components turned
 * into text), its sections (split at headings, with anchors), links, `@mentions`, code blocks
 * and a first-paragraph summary.
 */
export interface FrontMatter {
  readonly data: Record<string, unknown>;
  readonly body: string;
}

/** Splits `---\nyaml\n---\nbody`; throws with the YAML parser's reason when it is not valid. */
export const splitFrontMatter = (text: string): FrontMatter | undefined => {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  const parsed: unknown = parseYaml(match[1] ?? '');
  const data =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  return { data, body: text.slice(match[0].length) };
};

export interface PageSection {
  /** The heading's anchor (explicit `{#id}` or GitHub's slug of its text). */
  readonly anchor: string;
  readonly heading: string;
  /** 1–6. */
  readonly level: number;
  /** Character offset of the heading line in the body. */
  readonly offset: number;
}

export interface PageLink {
  /**
   * As written (decoded), e.g. `../basic/lifecycle#initialization`, `/config/`, `xref:a.b`; a
   * mention is `@name`.
   */
  readonly href: string;
  /** 1-based line in the body. */
  readonly line: number;
  /** An `@name` in prose: a link only when it names a node. */
  readonly mention: boolean;
}

export interface CodeBlock {
  /** 1-based, in order of appearance. */
  readonly ordinal: number;
  readonly kind: 'fenced' | 'directive';
  /** Normalised language tag (`typescript`, `bash`); '' when untagged. */
  readonly language: string;
  /** Fenced: the code. Directive: empty (the code is in `source`). */
  readonly code: string;
  /** Directive attributes (`source`, `range`, `title`, ...); a fence's title (`title`). */
  readonly attributes: Readonly<Record<string, string>>;
  /** 1-based line in the body. */
  readonly line: number;
  /** Index of the section it stands in (0: before the first heading). */
  readonly section: number;
}

export interface ParsedPage {
  /** Markdown with the dialects rendered to CommonMark; line N is line N of the source body. */
  readonly body: string;
  /** Text of the first heading when it is a level-1 heading. */
  readonly heading: string | undefined;
  readonly sections: readonly PageSection[];
  /** Links and `@mentions`, in the order they appear. */
  readonly links: readonly PageLink[];
  readonly blocks: readonly CodeBlock[];
  /** The first paragraph's text, up to about 300 characters. */
  readonly firstParagraph: string;
  readonly includes: readonly Include[];
  /** Anchors declared by `id`/`name` attributes, beside the headings'. */
  readonly anchors: readonly string[];
  /** Learn `::: moniker range` zones (their marker lines are blank in `body`). */
  readonly monikerZones?: readonly MonikerZone[];
  /** MDX `<Name />` lines showing an imported Markdown partial (their lines are blank in `body`). */
  readonly partials: readonly PartialUse[];
}

/** Languages that are prose, output or pictures, not code: their blocks are not samples. */
const NOT_CODE = new Set([
  '',
  'text',
  'txt',
  'plaintext',
  'plain',
  'output',
  'log',
  'mermaid',
  'mmd',
  'plantuml',
  'puml',
  'dot',
  'graphviz',
  'd2',
  'ascii',
  'diagram',
  'math',
  'latex',
  'tex',
  'csv',
]);

const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  typescript: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  javascript: 'javascript',
  sh: 'bash',
  shell: 'bash',
  console: 'bash',
  zsh: 'bash',
  shellscript: 'bash',
  yml: 'yaml',
  py: 'python',
  py3: 'python',
  python3: 'python',
  rb: 'ruby',
  rs: 'rust',
  cs: 'csharp',
  'c#': 'csharp',
  kt: 'kotlin',
  ps1: 'powershell',
  pwsh: 'powershell',
  jsonc: 'json',
  json5: 'json',
};

export const normalizeLanguage = (language: string): string => {
  const lower = language.toLowerCase();
  return LANGUAGE_ALIASES[lower] ?? lower;
};

export const isDiagramOrText = (language: string): boolean => NOT_CODE.has(language.toLowerCase());

/**
 * A fence's info string: `ts twoslash`, `js:line-numbers {1,3}`, `json title="a.json"`,
 * `[.env]` (VitePress: a title, no language), `python hl_lines="2"`.
 */
export const parseFenceInfo = (info: string): { language: string; title: string | undefined } => {
  const trimmed = info.trim();
  const title =
    /\btitle=["']([^"']+)["']/.exec(trimmed)?.[1] ?? /^\s*\[([^\]]+)\]/.exec(trimmed)?.[1];
  const language = /^\{?\s*\.?([^\s{}[\]:]+)/.exec(trimmed)?.[1] ?? '';
  return { language: normalizeLanguage(language), title };
};

const DIRECTIVE = /^\s*:::code\s+(.*?):::\s*$/;
const DIRECTIVE_ATTRIBUTE = /([A-Za-z][\w-]*)="([^"]*)"/g;
// `@handle` not inside a word, an email or a path, not a scoped package (`@scope/name`).
const MENTION = /(?<![\w@./\\-])@([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?![\w/-])/g;

const createParser = (mdx: boolean): MarkdownIt => {
  const parser = markdownIt({ html: !mdx, linkify: false });
  // MDX has no indented code blocks (children of components are indented) and no HTML.
  if (mdx) parser.disable(['code', 'html_block', 'html_inline', 'autolink']);
  return parser;
};
const PARSERS = { md: createParser(false), mdx: createParser(true) };

const decode = (href: string): string => {
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
};

// `lineBreak`: what a line break inside the text becomes ('' keeps a heading's anchor as the
// site builds it; a summary needs ' ', or `get_request`⏎`with` would read `get_requestwith`).
const inlineText = (token: Token | undefined, lineBreak = ''): string =>
  (token?.children ?? [])
    .map((child) => {
      if (child.type === 'text' || child.type === 'code_inline') return child.content;
      return child.type === 'softbreak' || child.type === 'hardbreak' ? lineBreak : '';
    })
    .join('')
    .trim();

const HREF_ATTRIBUTE = /(?<=\s)href\s*=\s*["']([^"'{}]+)["']/g;

const cutSummary = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const sentence = flat.slice(0, max).lastIndexOf('. ');
  if (sentence > max / 3) return flat.slice(0, sentence + 1);
  // At a space, so that no identifier is cut into what reads as another.
  const space = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, space > max / 3 ? space : max).trimEnd()}…`;
};

export const parsePage = (source: string, options: { readonly mdx: boolean }): ParsedPage => {
  const dialect = rewriteDialects(source, { mdx: options.mdx });
  const body = dialect.text;
  const lineStarts: number[] = [0];
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const tokens = (options.mdx ? PARSERS.mdx : PARSERS.md).parse(body, {});
  const slugger = new GithubSlugger();
  const sections: PageSection[] = [];
  const links: PageLink[] = [];
  const blocks: CodeBlock[] = [];
  let heading: string | undefined;
  let firstParagraph = '';
  let line = 1;
  const addHrefs = (html: string, at: number): void => {
    for (const [, href] of html.matchAll(HREF_ATTRIBUTE)) {
      if (href) links.push({ href: decode(href), line: at, mention: false });
    }
  };
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] as Token;
    if (token.map) line = token.map[0] + 1;
    switch (token.type) {
      case 'heading_open': {
        const text = inlineText(tokens[index + 1]);
        const level = Number(token.tag.slice(1));
        const explicit = token.map ? dialect.headingIds.get(token.map[0]) : undefined;
        const anchor = explicit ?? slugger.slug(text);
        if (explicit) slugger.slug(explicit); // later duplicates of it get a suffix, as on sites
        if (sections.length === 0 && level === 1 && heading === undefined) heading = text;
        sections.push({ anchor, heading: text, level, offset: lineStarts[line - 1] ?? 0 });
        break;
      }
      case 'paragraph_open': {
        if (firstParagraph === '' && tokens[index - 1]?.type !== 'list_item_open') {
          const text = inlineText(tokens[index + 1], ' ');
          // A line of bold text alone is a rendered component title, not the page's summary.
          if (text.length > 40 || /[.!?:]$/.test(text)) firstParagraph = cutSummary(text);
        }
        break;
      }
      case 'inline':
        for (const child of token.children ?? []) {
          if (child.type === 'link_open') {
            const href = child.attrGet('href');
            if (typeof href === 'string' && href !== '') {
              links.push({ href: decode(href), line, mention: false });
            }
          } else if (child.type === 'html_inline') addHrefs(child.content, line);
          else if (child.type === 'text' && child.content.includes('@')) {
            for (const match of child.content.matchAll(MENTION)) {
              if (match[1]) links.push({ href: `@${match[1]}`, line, mention: true });
            }
          }
        }
        break;
      case 'html_block':
        addHrefs(token.content, line);
        break;
      case 'fence': {
        const { language, title } = parseFenceInfo(token.info);
        if (isDiagramOrText(language)) break;
        blocks.push({
          ordinal: blocks.length + 1,
          kind: 'fenced',
          language,
          code: token.content.replace(/\n$/, ''),
          attributes: title === undefined ? {} : { title },
          line,
          section: sections.length,
        });
        break;
      }
      default:
        break;
    }
  }
  // DocFX `:::code` directives name a source file; they stand on lines of their own.
  const lines = body.includes(':::code') ? body.split('\n') : [];
  lines.forEach((text, lineIndex) => {
    const directive = DIRECTIVE.exec(text);
    if (!directive) return;
    const attributes: Record<string, string> = {};
    for (const [, name, value] of (directive[1] ?? '').matchAll(DIRECTIVE_ATTRIBUTE)) {
      if (name !== undefined && value !== undefined) attributes[name] = value;
    }
    const offset = lineStarts[lineIndex] ?? 0;
    blocks.push({
      ordinal: 0,
      kind: 'directive',
      language: normalizeLanguage(attributes.language ?? ''),
      code: '',
      attributes,
      line: lineIndex + 1,
      section: sections.filter((section) => section.offset <= offset).length,
    });
  });
  // DocFX `[!code-…]` lines (taken out of the text as includes) are directives too.
  for (const include of dialect.includes) {
    if (include.syntax !== '[!code]') continue;
    const offset = lineStarts[include.line] ?? 0;
    blocks.push({
      ordinal: 0,
      kind: 'directive',
      language: normalizeLanguage(include.language ?? ''),
      code: '',
      attributes: { source: include.target, syntax: '[!code]', caption: include.title ?? '' },
      line: include.line + 1,
      section: sections.filter((section) => section.offset <= offset).length,
    });
  }
  blocks.sort((a, b) => a.line - b.line);
  return {
    body,
    heading,
    sections,
    links,
    blocks: blocks.map((block, i) => ({ ...block, ordinal: i + 1 })),
    firstParagraph,
    includes: dialect.includes.filter((include) => include.syntax !== '[!code]'),
    anchors: dialect.anchors,
    monikerZones: findMonikerZones(source),
    partials: options.mdx ? partialUses(source) : [],
  };
};
