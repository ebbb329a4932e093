import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { NodeContent } from './content.js';
import type { Collected } from './issues.js';
import type { CodeBlock } from './page.js';
import { codeReferenceOf, extractCode, languageOfFile, type CodeReference } from './docfx-code.js';
import type { InlinedCode } from './docfx-code-inline.js';
import { readIncluded, type IncludeProblem } from './docfx-include.js';
import type { BuiltNode } from './page-node.js';

/**
 * The code of a page as CodeSample nodes (`<page uid>.sample-<n>`, edge `exampleOf` to the
 * page and its section): its fenced blocks, DocFX `:::code` directives and code includes
 * (`<<< file`, `--8<-- "file"`, `{* file *}`) of files inside the folder.
 */
const toPosix = (path: string): string => path.split(sep).join('/');

const EXTENSION_LANGUAGES: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  jsx: 'jsx',
  py: 'python',
  sh: 'bash',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  cs: 'csharp',
  go: 'go',
  rs: 'rust',
  java: 'java',
  html: 'html',
  css: 'css',
  vue: 'vue',
};

/**
 * The file a directive or include names, when it is inside the corpus folder: relative to the
 * page, or with `~/` to the folder of the site's docfx.json (`docfxRoot`; '' or undefined: the
 * corpus folder), with `@/` to the corpus folder.
 */
export const insideRoot = (
  root: string,
  fromFile: string,
  target: string,
  docfxRoot?: string,
): string | undefined => {
  const path = target.startsWith('~/')
    ? resolve(root, docfxRoot ?? '', target.slice(2))
    : target.startsWith('@/')
      ? resolve(root, target.slice(2))
      : resolve(dirname(join(root, fromFile)), target);
  const rel = relative(root, path);
  return rel.startsWith('..') || rel === '' ? undefined : toPosix(rel);
};

export interface ExtractedSamples {
  readonly samples: NodeContent[];
  /** DocFX code references to show in the page's text in place of their lines. */
  readonly inlined: InlinedCode[];
}

type Warn = (reason: string, fix: string) => void;

/** The code of a directive block (`:::code`, `[!code-…]`), or undefined after a warning. */
const directiveCode = async (
  root: string,
  file: string,
  block: CodeBlock,
  options: { readonly docfxRoot: string | undefined; readonly resolved: string | undefined },
  warn: Warn,
): Promise<
  { code: string; language: string; target: string; reference: CodeReference } | undefined
> => {
  const syntax = block.attributes.syntax === '[!code]' ? '[!code]' : ':::code';
  const reference = codeReferenceOf(block.attributes, block.language);
  if ('problem' in reference) {
    warn(`${syntax} ${reference.problem}; the block is left out`, reference.fix);
    return undefined;
  }
  const source = reference.path;
  const target = options.resolved ?? insideRoot(root, file, source, options.docfxRoot);
  if (target === undefined) {
    warn(
      `${syntax} source "${source}" is outside the corpus folder; the block is left out`,
      'move the file into the folder, or ingest the folder above',
    );
    return undefined;
  }
  const language = reference.language ?? languageOfFile(target, EXTENSION_LANGUAGES);
  if (!language) {
    warn(
      `${syntax} ${source} has no language and its extension names none; the block is left out`,
      syntax === ':::code'
        ? 'add language="csharp" (or the file’s language)'
        : 'write [!code-csharp[…](…)] (or the file’s language)',
    );
    return undefined;
  }
  let text: string;
  try {
    text = await readFile(join(root, target), 'utf8');
  } catch {
    warn(
      `${syntax} source "${source}" not found (looked at ${target}); the block is left out`,
      'fix the path',
    );
    return undefined;
  }
  const code = extractCode(text, reference);
  if (typeof code !== 'string') {
    warn(`${syntax} ${source} ${code.problem}; the block is left out`, code.fix);
    return undefined;
  }
  return { code, language, target, reference };
};

export const extractSamples = async (
  root: string,
  node: BuiltNode,
  used: Set<string>,
  collected: Collected,
  docfxRoot?: string,
): Promise<ExtractedSamples> => {
  const { draft, content } = node;
  const blocks: CodeBlock[] = [...draft.parsed.blocks];
  // The file each include's block names, already resolved (and checked) below.
  const resolved = new Map<CodeBlock, string>();
  const inlined: InlinedCode[] = [];
  // Code includes (`<<< file`, `--8<-- "file"`, `{* file *}`) inside the folder are samples too.
  for (const include of draft.parsed.includes) {
    const path = include.target.replace(/[#{].*$/, '');
    const target = insideRoot(root, draft.file, path, docfxRoot);
    const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
    if (target === undefined || !(await stat(join(root, target)).catch(() => undefined))) {
      collected.warnings.push({
        file: draft.file,
        field: `include (line ${include.line + 1 + draft.bodyOffset})`,
        reason: `${include.syntax} ${include.target}: not in the folder, so its text is not ingested`,
        fix: 'ingest the folder that holds the included file as well, or leave it: the page is ingested without it',
        line: include.line + 1 + draft.bodyOffset,
      });
      continue;
    }
    used.add(target);
    if (include.syntax === '[!INCLUDE]' && /^(md|markdown)$/.test(extension)) {
      const line = include.line + 1 + draft.bodyOffset;
      const problems: IncludeProblem[] = [];
      const text = await readIncluded(root, target, draft.file, docfxRoot, problems);
      for (const problem of problems) {
        collected.warnings.push({
          file: draft.file,
          field: `include (line ${line})`,
          reason: `[!INCLUDE] ${problem.reason}`,
          fix: problem.fix,
          line,
        });
      }
      if (text !== undefined)
        inlined.push({ line: include.line + 1, language: '', code: text, markdown: true });
      continue;
    }
    const language = EXTENSION_LANGUAGES[extension];
    if (!language) continue;
    const block: CodeBlock = {
      ordinal: 0,
      kind: 'directive',
      language,
      code: '',
      attributes: { source: target },
      line: include.line + 1,
      section: 0,
    };
    resolved.set(block, target);
    blocks.push(block);
  }
  blocks.sort((a, b) => a.line - b.line);
  const samples: NodeContent[] = [];
  let ordinal = 0;
  for (const block of blocks) {
    let code = block.code;
    let language = block.language;
    let sourcePath = draft.file;
    const extra: Record<string, string> = {};
    const line = block.line + draft.bodyOffset;
    if (block.kind === 'directive') {
      const warn: Warn = (reason, fix) => {
        collected.warnings.push({
          file: draft.file,
          field: `code block (line ${line})`,
          reason,
          fix,
          line,
        });
      };
      const options = { docfxRoot, resolved: resolved.get(block) };
      const found = await directiveCode(root, draft.file, block, options, warn);
      // A DocFX reference that cannot be read leaves no raw line in the text.
      const docfx = !resolved.has(block);
      if (!found) {
        if (docfx) inlined.push({ line: block.line, language: '', code: '' });
        continue;
      }
      ({ code, language } = found);
      sourcePath = found.target;
      used.add(found.target);
      if (docfx) inlined.push({ line: block.line, language, code });
      const { caption, snippet, range, highlight, interactive } = found.reference;
      Object.assign(
        extra,
        Object.fromEntries(
          Object.entries({ caption, snippet, range, highlight, interactive }).filter(
            ([, value]) => value !== undefined && value !== '',
          ),
        ),
      );
    }
    ordinal += 1;
    const section = block.section > 0 ? content.sections?.[block.section - 1] : undefined;
    samples.push({
      uid: `${content.uid}.sample-${ordinal}`,
      label: 'CodeSample',
      title:
        block.attributes.title ??
        `${content.title}${section ? ` › ${section.heading}` : ''}: ${language} sample ${ordinal}`,
      summary: `${language} sample ${ordinal} from "${content.title}"${section ? `, section "${section.heading}"` : ''}.`,
      body: code.replace(/\s+$/, '') + '\n',
      product: content.product,
      monikers: content.monikers,
      attributes: {
        language,
        sourceUid: content.uid,
        ...(section ? { section: section.anchor } : {}),
        ...extra,
      },
      edges: [
        {
          type: 'exampleOf',
          target: content.uid,
          ordinal: 0,
          origin: 'text',
          ...(section ? { anchor: section.anchor } : {}),
        },
      ],
      sourcePath,
      ...(content.source === undefined ? {} : { source: content.source }),
      ...(content.page === undefined ? {} : { page: content.page }),
    });
  }
  return { samples, inlined };
};
