import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { NodeContent } from './content.js';
import type { Collected } from './issues.js';
import type { CodeBlock } from './page.js';
import type { BuiltNode } from './page-node.js';

/**
 * The code of a page as CodeSample nodes (`<page uid>.sample-<n>`, edge `exampleOf` to the
 * page and its section): its fenced blocks, DocFX `:::code` directives and code includes
 * (`<<< file`, `--8<-- "file"`, `{* file *}`) of files inside the folder.
 */
const toPosix = (path: string): string => path.split(sep).join('/');

const parseRange = (range: string | undefined, code: string): string | undefined => {
  if (range === undefined) return code;
  const match = /^(\d+)(?:-(\d+))?$/.exec(range);
  if (!match) return undefined;
  const lines = code.split('\n');
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  return start >= 1 && end >= start && end <= lines.length
    ? lines.slice(start - 1, end).join('\n')
    : undefined;
};

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

/** The file a directive or include names, when it is inside the corpus folder. */
const insideRoot = (root: string, fromFile: string, target: string): string | undefined => {
  const path =
    target.startsWith('~/') || target.startsWith('@/')
      ? resolve(root, target.slice(2))
      : resolve(dirname(join(root, fromFile)), target);
  const rel = relative(root, path);
  return rel.startsWith('..') || rel === '' ? undefined : toPosix(rel);
};

export const extractSamples = async (
  root: string,
  node: BuiltNode,
  used: Set<string>,
  collected: Collected,
): Promise<NodeContent[]> => {
  const { draft, content } = node;
  const blocks: CodeBlock[] = [...draft.parsed.blocks];
  // Code includes (`<<< file`, `--8<-- "file"`, `{* file *}`) inside the folder are samples too.
  for (const include of draft.parsed.includes) {
    const target = insideRoot(root, draft.file, include.target.replace(/[#{].*$/, ''));
    const extension =
      /\.([A-Za-z0-9]+)$/.exec(include.target.replace(/[#{].*$/, ''))?.[1]?.toLowerCase() ?? '';
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
    const language = EXTENSION_LANGUAGES[extension];
    if (!language) continue;
    blocks.push({
      ordinal: 0,
      kind: 'directive',
      language,
      code: '',
      attributes: { source: target.startsWith('..') ? include.target : `~/${target}` },
      line: include.line + 1,
      section: 0,
    });
  }
  blocks.sort((a, b) => a.line - b.line);
  const samples: NodeContent[] = [];
  let ordinal = 0;
  for (const block of blocks) {
    let code = block.code;
    let sourcePath = draft.file;
    const line = block.line + draft.bodyOffset;
    const field = `code block (line ${line})`;
    if (block.kind === 'directive') {
      const source = block.attributes.source;
      const warn = (reason: string, fix: string): void => {
        collected.warnings.push({ file: draft.file, field, reason, fix, line });
      };
      if (!source) {
        warn(':::code has no source="path"; the block is left out', 'add source="relative/path"');
        continue;
      }
      if (!block.language) {
        warn(
          ':::code has no language="..."; the block is left out',
          'add language="ts" (or the file’s language)',
        );
        continue;
      }
      const target = insideRoot(root, draft.file, source);
      if (target === undefined) {
        warn(
          `source "${source}" is outside the corpus folder; the block is left out`,
          'move the file into the folder, or ingest the folder above',
        );
        continue;
      }
      try {
        code = await readFile(join(root, target), 'utf8');
      } catch {
        warn(
          `source "${source}" not found (looked at ${target}); the block is left out`,
          'fix the path',
        );
        continue;
      }
      used.add(target);
      const ranged = parseRange(block.attributes.range, code);
      if (ranged === undefined) {
        warn(
          `range "${block.attributes.range ?? ''}" is not N or N-M within the file; the block is left out`,
          'write range="N" or range="N-M"',
        );
        continue;
      }
      code = ranged;
      sourcePath = target;
    }
    ordinal += 1;
    const section = block.section > 0 ? content.sections?.[block.section - 1] : undefined;
    samples.push({
      uid: `${content.uid}.sample-${ordinal}`,
      label: 'CodeSample',
      title:
        block.attributes.title ??
        `${content.title}${section ? ` › ${section.heading}` : ''}: ${block.language} sample ${ordinal}`,
      summary: `${block.language} sample ${ordinal} from "${content.title}"${section ? `, section "${section.heading}"` : ''}.`,
      body: code.replace(/\s+$/, '') + '\n',
      product: content.product,
      monikers: content.monikers,
      attributes: {
        language: block.language,
        sourceUid: content.uid,
        ...(section ? { section: section.anchor } : {}),
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
  return samples;
};
