import { fencedLines } from './dialects.js';

// MDX partial uses: an `import Name from './_x.md'` and a `<Name />` line of its own. Pure: the
// page parser records them (in worker threads too); mdx-partials.ts reads them.

const IMPORT = /^import\s+([A-Z][\w$]*)\s+from\s+['"]([^'"]+\.mdx?)['"];?\s*$/;
const USE = /^(\s*)<([A-Z][\w$]*)\s*\/>\s*$/;

export interface PartialUse {
  /** 1-based line of the body. */
  readonly line: number;
  readonly indent: string;
  readonly target: string;
}

/** The `<Name />` lines of a body whose Name is imported from a Markdown file. */
export const partialUses = (body: string): PartialUse[] => {
  const lines = body.split('\n');
  const imports = new Map<string, string>();
  const uses: { line: number; indent: string; name: string }[] = [];
  const fenced = fencedLines(lines);
  lines.forEach((line, index) => {
    if (fenced[index]) return;
    const imported = IMPORT.exec(line);
    if (imported?.[1] && imported[2]) imports.set(imported[1], imported[2]);
    const used = USE.exec(line);
    if (used?.[2]) uses.push({ line: index + 1, indent: used[1] ?? '', name: used[2] });
  });
  return uses.flatMap(({ line, indent, name }) => {
    const target = imports.get(name);
    return target === undefined ? [] : [{ line, indent, target }];
  });
};
