import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { nestingProblem, rebaseLinks, type IncludeProblem } from './docfx-include.js';
import type { InlinedCode } from './docfx-code-inline.js';
import { rewriteDialects } from './dialects.js';
import { partialUses, type PartialUse } from './mdx-partial-uses.js';
import { splitFrontMatter } from './page.js';

/**
 * MDX partials (Docusaurus "importing Markdown", Mintlify snippets): a page that writes
 * `import Note from './_note.md'` and then `<Note />` on a line of its own shows the partial's
 * text there. That text stands in the page as the site renders it, so it is in the section, in
 * `docs_fetch` and in search; its relative links are rebased to the page. Partials that import
 * partials are expanded too, bounded and never in a cycle (as `[!INCLUDE]` is).
 */

/** The file an import names: `@site/` from the Docusaurus site folder, `/` from the corpus root. */
const importedFile = (fromFile: string, target: string, siteDir: string): string =>
  target.startsWith('@site/')
    ? posix.normalize(posix.join(siteDir, target.slice('@site/'.length)))
    : target.startsWith('/')
      ? posix.normalize(target.slice(1))
      : posix.normalize(posix.join(posix.dirname(fromFile), target));

const bodyOf = (text: string): string => {
  try {
    return splitFrontMatter(text)?.body ?? text;
  } catch {
    return text;
  }
};

interface PartialContext {
  readonly root: string;
  readonly siteDir: string;
  readonly problems: IncludeProblem[];
}

/** A partial's text for the page `pageFile`, its own partials expanded; undefined if unreadable. */
const readPartial = async (
  context: PartialContext,
  file: string,
  pageFile: string,
  trail: readonly string[],
): Promise<string | undefined> => {
  if (file.startsWith('../')) return undefined;
  let text: string;
  try {
    text = bodyOf(await readFile(join(context.root, file), 'utf8')).replace(/\r\n?/g, '\n');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const at = [...trail, file];
  for (const use of partialUses(text)) {
    const nested = importedFile(file, use.target, context.siteDir);
    const problem = (reason: string, fix: string): void => {
      context.problems.push({ line: -1, reason: `${file} → ${use.target}: ${reason}`, fix });
      lines[use.line - 1] = '';
    };
    const refused = nestingProblem(at, nested, 'imports');
    if (refused) {
      problem(refused.reason, refused.fix);
      continue;
    }
    const inner = await readPartial(context, nested, file, at);
    if (inner === undefined) {
      problem(`not found (looked at ${nested})`, 'fix the import path');
      continue;
    }
    lines[use.line - 1] = use.indent === '' ? inner : inner.replace(/^(?=.)/gm, use.indent);
  }
  // Rendered as the page's own text is (containers, components, ESM lines: the dialects), so
  // the page reads the same throughout; nested partials are already text by now.
  const content = rewriteDialects(lines.join('\n'), { mdx: true }).text;
  return rebaseLinks(content.trim(), posix.dirname(file), posix.dirname(pageFile));
};

/**
 * The partials a page shows, as text to stand in place of their `<Name />` lines, and the
 * problems (a missing file, a cycle) to report on the page.
 */
export const inlinePartials = async (
  root: string,
  pageFile: string,
  uses: readonly PartialUse[],
  siteDir: string,
): Promise<{ inlined: InlinedCode[]; problems: IncludeProblem[] }> => {
  const problems: IncludeProblem[] = [];
  const inlined: InlinedCode[] = [];
  const context = { root, siteDir, problems };
  for (const use of uses) {
    const file = importedFile(pageFile, use.target, siteDir);
    const before = problems.length;
    const text = await readPartial(context, file, pageFile, [pageFile]);
    // A problem deep in the partials is reported on the page line that shows them.
    for (let i = before; i < problems.length; i += 1) {
      const problem = problems[i];
      if (problem) problems[i] = { ...problem, line: use.line };
    }
    if (text === undefined) {
      problems.push({
        line: use.line,
        reason: `import of ${use.target}: not found (looked at ${file}), so its text is not in the page`,
        fix: 'fix the import path, or ingest the folder that holds the partial as well',
      });
      continue;
    }
    inlined.push({ line: use.line, language: '', code: text, markdown: true });
  }
  return { inlined, problems };
};
