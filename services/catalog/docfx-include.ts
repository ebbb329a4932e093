import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { fencedLines, rewriteDialects } from './dialects.js';
import { splitFrontMatter } from './page.js';

/**
 * DocFX / Learn `[!INCLUDE [title](path.md)]`: the included Markdown is part of the page as
 * Learn renders it, so its text is in the section that includes it, in `docs_fetch` and in
 * search. Links and images inside it are written relative to the included file; they are
 * rewritten relative to the page so they still point where they did. Nested includes are
 * expanded too, to a bounded depth and never in a cycle.
 */

/** Learn documents no limit; real sites nest two or three deep. */
export const MAX_INCLUDE_DEPTH = 5;

const INCLUDE_LINE = /^(\s*)\[!INCLUDE\s*\[[^\]]*\]\(\s*([^)\s]+)\s*\)\]\s*$/i;
// `](target)` of a Markdown link or image, and `source="…"` of a Learn directive.
const LINK_TARGET = /(\]\(\s*<?)([^)\s>]+)/g;
const SOURCE_ATTRIBUTE = /(\s(?:source|lightbox)=")([^"]+)/g;

/** Whether a link target is relative to the file that holds it. */
const isRelative = (target: string): boolean =>
  !/^([a-z][a-z0-9+.-]*:|\/|#|~\/|@\/|xref:)/i.test(target);

/** `target`, written in `fromDir`, as seen from `toDir` (folders relative to the corpus root). */
const rebase = (target: string, fromDir: string, toDir: string): string => {
  if (!isRelative(target) || fromDir === toDir) return target;
  const split = /^([^?#]*)(.*)$/.exec(target);
  const path = split?.[1] ?? target;
  const rest = split?.[2] ?? '';
  if (path === '') return target;
  const moved = posix.relative(toDir, posix.join(fromDir, path));
  return `${moved === '' ? '.' : moved}${rest}`;
};

/** Rewrites relative link, image and `source=` targets of `text` from `fromDir` to `toDir`. */
export const rebaseLinks = (text: string, fromDir: string, toDir: string): string => {
  if (fromDir === toDir) return text;
  const lines = text.split('\n');
  const fenced = fencedLines(lines);
  return lines
    .map((line, index) => {
      if (fenced[index]) return line;
      return line
        .replace(
          LINK_TARGET,
          (_all, open: string, target: string) => `${open}${rebase(target, fromDir, toDir)}`,
        )
        .replace(
          SOURCE_ATTRIBUTE,
          (_all, open: string, target: string) => `${open}${rebase(target, fromDir, toDir)}`,
        );
    })
    .join('\n');
};

/** Where an include names its file: `~/` from the docfx.json folder, else from the includer. */
const includedFile = (fromFile: string, target: string, docfxRoot: string | undefined): string => {
  const path = decodeURIComponent(target.replace(/[?#].*$/, ''));
  return target.startsWith('~/')
    ? posix.normalize(posix.join(docfxRoot ?? '', path.slice(2)))
    : posix.normalize(posix.join(posix.dirname(fromFile), path));
};

/**
 * Why `nested` may not be read after the files of `trail` (a cycle, or too deep), or undefined.
 * `verb` names how the last file takes it in ("includes", "imports").
 */
export const nestingProblem = (
  trail: readonly string[],
  nested: string,
  verb: string,
): { reason: string; fix: string } | undefined => {
  if (trail.includes(nested))
    return {
      reason: `${verb} itself (${[...trail, nested].join(' → ')})`,
      fix: `remove the ${verb === 'includes' ? 'include' : 'import'} that closes the cycle`,
    };
  if (trail.length >= MAX_INCLUDE_DEPTH)
    return {
      reason: `nested more than ${MAX_INCLUDE_DEPTH} deep`,
      fix: `${verb === 'includes' ? 'include' : 'import'} the innermost file directly`,
    };
  return undefined;
};

export interface IncludeProblem {
  readonly line: number;
  readonly reason: string;
  readonly fix: string;
}

/**
 * The Markdown `file` (relative to `root`) includes, ready to stand in the page `pageFile`:
 * front matter dropped, nested includes expanded, relative targets rebased to the page. A
 * problem (missing, outside the folder, a cycle, too deep) is reported and its line left
 * empty; undefined when `file` itself cannot be read.
 */
export const readIncluded = async (
  root: string,
  file: string,
  pageFile: string,
  docfxRoot: string | undefined,
  problems: IncludeProblem[],
  trail: readonly string[] = [],
): Promise<string | undefined> => {
  if (file.startsWith('../') || file === '..') return undefined;
  let text: string;
  try {
    text = await readFile(join(root, file), 'utf8');
  } catch {
    return undefined;
  }
  const body = (splitFrontMatterSafe(text) ?? text).replace(/\r\n?/g, '\n');
  const lines = body.split('\n');
  const fenced = fencedLines(lines);
  const out: string[] = [];
  for (const [index, line] of lines.entries()) {
    const match = fenced[index] ? null : INCLUDE_LINE.exec(line);
    if (!match?.[2]) {
      out.push(line); // moniker zone markers are blanked with the dialects below
      continue;
    }
    const nested = includedFile(file, match[2], docfxRoot);
    const at = [...trail, file];
    const refused = nestingProblem(at, nested, 'includes');
    if (refused) {
      problems.push({
        line: -1,
        reason: `${file} → ${match[2]}: ${refused.reason}`,
        fix: refused.fix,
      });
      out.push('');
      continue;
    }
    const inner = await readIncluded(root, nested, file, docfxRoot, problems, at);
    if (inner === undefined) {
      problems.push({
        line: -1,
        reason: `${file} → ${match[2]}: not found (looked at ${nested})`,
        fix: 'fix the path of the include',
      });
      out.push('');
      continue;
    }
    const indent = match[1] ?? '';
    out.push(indent === '' ? inner : inner.replace(/^(?=.)/gm, indent));
  }
  // Rendered as the page's own text is (the dialects), so the page reads the same throughout.
  return rebaseLinks(
    rewriteDialects(out.join('\n'), { mdx: false }).text.replace(/\s+$/, ''),
    posix.dirname(file),
    posix.dirname(pageFile),
  );
};

const splitFrontMatterSafe = (text: string): string | undefined => {
  try {
    return splitFrontMatter(text)?.body;
  } catch {
    return undefined;
  }
};
