import markdownIt from 'markdown-it';
import type { Token } from 'markdown-it';

/**
 * Markdown as people and models read it in excerpts: prose as its page shows it (emphasis
 * markers, link targets and HTML tags out, entities decoded, whitespace collapsed), code as
 * the page writes it. A code span keeps its backticks and every character inside them
 * (`get_request`, `**kwargs`, `std::vector<int>`, `&lt;`); a fenced or indented code block
 * keeps its lines, as a fenced block of its own. Parsed by markdown-it, the parser the
 * catalog and the console use, so `foo_bar_baz()` in prose stays whole (intraword underscores
 * are not emphasis in CommonMark) and `a*b*c` reads as the page renders it.
 */

/** An indivisible piece of readable text: a word of prose (with any code spans in it) or a block. */
export interface ReadableUnit {
  readonly text: string;
  /** A fenced code block, on lines of its own. */
  readonly block: boolean;
}

// Raw HTML is recognised (so tags leave the prose) but only known elements are dropped: `Vec<T>`
// or `List<string>` in prose is a type the writer meant, not markup.
const PARSER = markdownIt({ html: true, linkify: false });

const HTML_ELEMENTS = new Set(
  (
    'a abbr b bdi bdo big blockquote br caption center cite code col colgroup dd del details dfn ' +
    'div dl dt em figcaption figure font h1 h2 h3 h4 h5 h6 hr i iframe img ins kbd li mark nav ' +
    'ol p picture pre q s samp section small source span strike strong style sub summary sup ' +
    'table tbody td tfoot th thead tr tt u ul var video wbr script noscript'
  ).split(' '),
);
const TAG_NAME = /^<\/?([A-Za-z][A-Za-z0-9-]*)/;
const isHtmlMarkup = (raw: string): boolean => {
  if (raw.startsWith('<!--')) return true;
  const name = TAG_NAME.exec(raw)?.[1];
  return name !== undefined && HTML_ELEMENTS.has(name.toLowerCase());
};

const longestRun = (text: string, char: string): number => {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
};

/** A code span written back as Markdown: enough backticks, padded when CommonMark needs it. */
export const codeSpan = (code: string): string => {
  const fence = '`'.repeat(longestRun(code, '`') + 1);
  const pad =
    code.startsWith('`') ||
    code.endsWith('`') ||
    (code.length > 1 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '');
  return pad ? `${fence} ${code} ${fence}` : `${fence}${code}${fence}`;
};

/** A code block written back as a fenced block, its lines as they are. */
const codeBlock = (code: string, info: string): string => {
  const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
  return `${fence}${info.trim()}\n${code.replace(/\n$/, '')}\n${fence}`;
};

/** Prose with its whitespace collapsed; code spans (already in `out`) are left as they are. */
const appendProse = (out: string, prose: string): string => {
  const flat = prose.replace(/\s+/g, ' ');
  return out.endsWith(' ') && flat.startsWith(' ') ? out + flat.slice(1) : out + flat;
};

const inlineReadable = (children: readonly Token[]): string => {
  let out = '';
  for (const child of children) {
    switch (child.type) {
      case 'text':
      case 'text_special':
        out = appendProse(out, child.content);
        break;
      case 'code_inline':
        out += codeSpan(child.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        out = appendProse(out, ' ');
        break;
      case 'image':
        out = appendProse(out, child.content); // its alt text
        break;
      case 'html_inline':
        if (!isHtmlMarkup(child.content)) out = appendProse(out, child.content);
        else if (/^<br\b/i.test(child.content)) out = appendProse(out, ' ');
        break;
      default:
        break; // emphasis, link and strikethrough markers
    }
  }
  return out;
};

const collapse = (prose: string): string => prose.replace(/\s+/g, ' ').trim();

// A DocFX code include (`[!code-csharp[Title](../File.cs?name=Snippet)]`) on a line of its own:
// not a link, so it reads as written (ingest may have put its code beside it).
const DOCFX_CODE = /^[ \t]*\[!code(?:-[^\s[\]]+)?\[[^\]\n]*\]\([^)\n]*\)\][ \t]*$/gm;

/** A paragraph's (or heading's, or cell's) text as people read it. */
const proseOf = (token: Token): string => {
  if (!token.content.includes('[!code')) return inlineReadable(token.children ?? []);
  const parse = (source: string): string =>
    inlineReadable(PARSER.parseInline(source, {})[0]?.children ?? []);
  const parts: string[] = [];
  let last = 0;
  for (const match of token.content.matchAll(DOCFX_CODE)) {
    parts.push(parse(token.content.slice(last, match.index)).trim(), match[0].trim());
    last = match.index + match[0].length;
  }
  parts.push(parse(token.content.slice(last)).trim());
  return parts.filter((part) => part !== '').join(' ');
};

/**
 * The readable pieces of some Markdown, in order: each paragraph, heading, list item or table
 * cell as prose (its code spans in it), each code block whole. `html_block`s keep their text.
 */
const readablePieces = (markdown: string): ReadableUnit[] => {
  const pieces: ReadableUnit[] = [];
  for (const token of PARSER.parse(markdown, {})) {
    if (token.type === 'inline') {
      const prose = proseOf(token).trim();
      if (prose !== '') pieces.push({ text: prose, block: false });
    } else if (token.type === 'fence') {
      pieces.push({ text: codeBlock(token.content, token.info), block: true });
    } else if (token.type === 'code_block') {
      pieces.push({ text: codeBlock(token.content, ''), block: true });
    } else if (token.type === 'html_block') {
      const prose = collapse(token.content.replace(/<[^>\n]+>/g, ' '));
      if (prose !== '') pieces.push({ text: prose, block: false });
    }
  }
  return pieces;
};

/** Readable units joined: words by spaces, blocks on lines of their own. */
export const joinUnits = (units: readonly ReadableUnit[]): string => {
  let out = '';
  let previous: ReadableUnit | undefined;
  for (const unit of units) {
    if (previous !== undefined) out += unit.block || previous.block ? '\n' : ' ';
    out += unit.text;
    previous = unit;
  }
  return out;
};

/** Some Markdown as readable text (see the module's comment). */
export const readableText = (markdown: string): string => joinUnits(readablePieces(markdown));

const OPENING_FENCE = /^(`{3,})[^`\n]*$/;

/**
 * The units of a readable text (what readableText returns, or a cut of it): words split at
 * whitespace outside code spans, fenced blocks whole. A backtick run without its closing run
 * is an ordinary character, as in CommonMark.
 */
export const readableUnits = (text: string): ReadableUnit[] => {
  const units: ReadableUnit[] = [];
  let word = '';
  const endWord = (): void => {
    if (word !== '') units.push({ text: word, block: false });
    word = '';
  };
  let i = 0;
  while (i < text.length) {
    const lineStart = i === 0 || text[i - 1] === '\n';
    if (lineStart && text.startsWith('```', i)) {
      const lineEnd = text.indexOf('\n', i);
      const opening = OPENING_FENCE.exec(text.slice(i, lineEnd === -1 ? undefined : lineEnd));
      const fence = opening?.[1];
      const closing =
        fence === undefined || lineEnd === -1 ? -1 : closingFence(text, lineEnd, fence);
      if (closing !== -1) {
        endWord();
        units.push({ text: text.slice(i, closing), block: true });
        i = closing;
        continue;
      }
    }
    const char = text[i] as string;
    if (char === '`') {
      let run = 1;
      while (text[i + run] === '`') run += 1;
      const end = closingRun(text, i + run, run);
      const span = end === -1 ? text.slice(i, i + run) : text.slice(i, end + run);
      word += span;
      i += span.length;
      continue;
    }
    if (/\s/.test(char)) endWord();
    else word += char;
    i += 1;
  }
  endWord();
  return units;
};

/** Where the block opened by `fence` ends (after its closing line), or -1. */
const closingFence = (text: string, from: number, fence: string): number => {
  for (let at = text.indexOf('\n', from); at !== -1; at = text.indexOf('\n', at + 1)) {
    const next = text.indexOf('\n', at + 1);
    const line = text.slice(at + 1, next === -1 ? undefined : next);
    if (line === fence) return next === -1 ? text.length : next;
  }
  return -1;
};

/** The start of the next run of exactly `length` backticks from `from`, or -1. */
const closingRun = (text: string, from: number, length: number): number => {
  for (let at = text.indexOf('`', from); at !== -1; at = text.indexOf('`', at)) {
    let run = 1;
    while (text[at + run] === '`') run += 1;
    if (run === length) return at;
    at += run;
  }
  return -1;
};

/**
 * A code block cut to about `room` characters at a line end, its fence closed; the block as it
 * is when it fits or when not even its first line would.
 */
export const cutBlock = (block: string, room: number): string => {
  if (block.length <= room) return block;
  const lines = block.split('\n');
  const fence = lines.at(-1) ?? '```';
  let out = lines[0] ?? '';
  for (const line of lines.slice(1, -1)) {
    if (out.length + line.length + fence.length + 4 > room) break;
    out += `\n${line}`;
  }
  return `${out}\n…\n${fence}`;
};

/**
 * The first units of a readable text up to about `max` characters, never cut inside a code
 * span or a code block's line: what a one-line listing shows of an excerpt.
 */
export const previewOf = (text: string, max: number): string => {
  if (text.length <= max) return text;
  const units = readableUnits(text);
  const kept: ReadableUnit[] = [];
  let length = 0;
  for (const unit of units) {
    const room = max - length;
    if (kept.length > 0 && unit.text.length > room) {
      if (unit.block && room > 40) kept.push({ text: cutBlock(unit.text, room), block: true });
      break;
    }
    kept.push(unit.block ? { text: cutBlock(unit.text, Math.max(room, 40)), block: true } : unit);
    length += unit.text.length + 1;
  }
  return `${joinUnits(kept)} …`;
};

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * [from, to) widened to the nearest empty lines outside fenced code, so that parsing only that
 * part of some Markdown reads its code as the whole text would: a long section's excerpt needs
 * the text around its first query term, not the whole section parsed.
 */
export const blockWindow = (
  markdown: string,
  from: number,
  to: number,
): { readonly start: number; readonly end: number } => {
  let start = 0;
  let end = markdown.length;
  let open: string | undefined;
  let offset = 0;
  for (const line of markdown.split('\n')) {
    const next = offset + line.length + 1;
    const fence = FENCE_LINE.exec(line)?.[1];
    if (open !== undefined) {
      if (fence !== undefined && fence[0] === open[0] && fence.length >= open.length) {
        if (line.trim() === fence) open = undefined;
      }
    } else if (fence !== undefined) open = fence;
    else if (line.trim() === '') {
      if (next <= from) start = next;
      else if (offset >= to) {
        end = offset;
        break;
      }
    }
    offset = next;
  }
  return { start, end };
};
