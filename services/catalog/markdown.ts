import { parse as parseYaml } from 'yaml';

/**
 * The bits of Markdown the catalog reads: YAML front matter, xref links (`@uid`,
 * `<xref:uid>`, `[text](xref:uid)`) outside code, and code blocks (fenced, or `:::code`
 * directives naming a source file).
 */

export interface FrontMatter {
  readonly data: Record<string, unknown>;
  readonly body: string;
}

/** Splits `---\nyaml\n---\nbody`; throws with the YAML parser's reason when it is not valid. */
export const splitFrontMatter = (text: string): FrontMatter | undefined => {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  const parsed: unknown = parseYaml(match[1] ?? '');
  const data =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  return { data, body: text.slice(match[0].length) };
};

export interface CodeBlock {
  /** 1-based, in order of appearance. */
  readonly ordinal: number;
  readonly kind: 'fenced' | 'directive';
  readonly language: string;
  /** Fenced: the code. Directive: empty (the code is in `source`). */
  readonly code: string;
  /** Directive attributes (`source`, `range`, `title`, ...). */
  readonly attributes: Readonly<Record<string, string>>;
  /** 1-based line in the body. */
  readonly line: number;
}

const FENCE_OPEN = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const DIRECTIVE = /^\s*:::code\s+(.*?):::\s*$/;
const DIRECTIVE_ATTRIBUTE = /([A-Za-z][\w-]*)="([^"]*)"/g;

/** Languages that are prose or pictures, not code: their fenced blocks are not samples. */
const NOT_CODE = new Set(['', 'text', 'txt', 'plaintext', 'plain', 'output']);

const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  typescript: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  javascript: 'javascript',
  sh: 'bash',
  shell: 'bash',
  console: 'bash',
  yml: 'yaml',
};

export const normalizeLanguage = (language: string): string => {
  const lower = language.toLowerCase();
  return LANGUAGE_ALIASES[lower] ?? lower;
};

export interface ScannedBody {
  readonly blocks: readonly CodeBlock[];
  /** The body without code (blocks, directives, inline spans), for link extraction. */
  readonly prose: string;
}

export const scanBody = (body: string): ScannedBody => {
  const lines = body.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  const prose: string[] = [];
  let fence: { marker: string; language: string; start: number; code: string[] } | undefined;
  lines.forEach((line, index) => {
    if (fence) {
      const trimmed = line.trim();
      if (trimmed.startsWith(fence.marker) && /^(`+|~+)$/.test(trimmed)) {
        if (!NOT_CODE.has(fence.language.toLowerCase())) {
          blocks.push({
            ordinal: blocks.length + 1,
            kind: 'fenced',
            language: normalizeLanguage(fence.language),
            code: fence.code.join('\n'),
            attributes: {},
            line: fence.start,
          });
        }
        fence = undefined;
      } else {
        fence.code.push(line);
      }
      return;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      fence = { marker: open[1] ?? '```', language: open[2] ?? '', start: index + 1, code: [] };
      return;
    }
    const directive = DIRECTIVE.exec(line);
    if (directive) {
      const attributes: Record<string, string> = {};
      for (const [, name, value] of (directive[1] ?? '').matchAll(DIRECTIVE_ATTRIBUTE)) {
        if (name !== undefined && value !== undefined) attributes[name] = value;
      }
      blocks.push({
        ordinal: blocks.length + 1,
        kind: 'directive',
        language: normalizeLanguage(attributes.language ?? ''),
        code: '',
        attributes,
        line: index + 1,
      });
      return;
    }
    prose.push(line.replace(/`[^`\n]*`/g, ''));
  });
  return { blocks, prose: prose.join('\n') };
};

export interface TextLink {
  readonly uid: string;
  /** `?view=` of the link, if any. */
  readonly moniker?: string;
}

const XREF_TAG = /<xref:([^>\s?#]+)(?:\?view=([^>\s#&]+))?[^>]*>/g;
const XREF_LINK = /\]\(xref:([^)\s?#]+)(?:\?view=([^)\s#&]+))?[^)]*\)/g;
// `@uid` not inside a word or an email, not a scoped package (`@scope/name`).
const AT_UID = /(?<![\w@./-])@([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?![\w/-])/g;

/** Links in prose, in order of first appearance, each uid once. */
export const extractLinks = (prose: string): TextLink[] => {
  const found = new Map<string, TextLink>();
  const add = (uid: string | undefined, moniker: string | undefined): void => {
    if (uid === undefined || found.has(uid)) return;
    found.set(uid, moniker === undefined ? { uid } : { uid, moniker });
  };
  const hits: { index: number; uid?: string; moniker?: string }[] = [];
  for (const pattern of [XREF_TAG, XREF_LINK]) {
    for (const match of prose.matchAll(pattern)) {
      hits.push({ index: match.index, uid: decodeURIComponent(match[1] ?? ''), moniker: match[2] });
    }
  }
  for (const match of prose.matchAll(AT_UID)) hits.push({ index: match.index, uid: match[1] });
  hits.sort((a, b) => a.index - b.index);
  for (const hit of hits) add(hit.uid, hit.moniker);
  return [...found.values()];
};
