/**
 * DocFX code references shown where they stand: each referencing line of a page's body becomes
 * a fenced block of the code it names (as Learn renders it), so the section's text, its
 * excerpts and its search terms hold the code.
 */
/** A fenced block of `code`, its fence longer than any backtick run inside. */
export const fencedBlock = (language: string, code: string): string => {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${code}\n${fence}`;
};

/** Code to show in place of a body line (1-based) that referenced it; language '': none. */
export interface InlinedCode {
  readonly line: number;
  /** '' when the reference could not be read: its line is then left empty. */
  readonly language: string;
  readonly code: string;
  /** Markdown to stand as it is (an `[!INCLUDE]`'s text) rather than code to fence. */
  readonly markdown?: boolean;
}

/**
 * The body with each referencing line replaced by a fenced block of its code, and the section
 * offsets moved by what was inserted before them, so each section's text holds its code.
 */
export const inlineCode = <S extends { readonly offset: number }>(
  page: { readonly body: string; readonly sections?: readonly S[] },
  inlined: readonly InlinedCode[],
): { body: string; sections?: S[] } => {
  const sections = page.sections?.map((section) => ({ ...section }));
  if (inlined.length === 0) return { body: page.body, ...(sections ? { sections } : {}) };
  const byLine = new Map(inlined.map((item) => [item.line, item]));
  const lines = page.body.split('\n');
  const out: string[] = [];
  const shifts: { at: number; by: number }[] = [];
  let offset = 0;
  lines.forEach((line, index) => {
    const item = byLine.get(index + 1);
    // Indented as the line was, so a reference inside a list item stays in it.
    const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
    const text = !item
      ? line
      : item.markdown === true
        ? item.code.replace(/^(?=.)/gm, indent)
        : item.language === ''
          ? ''
          : fencedBlock(item.language, item.code).replace(/^/gm, indent);
    if (item) shifts.push({ at: offset, by: text.length - line.length });
    out.push(text);
    offset += line.length + 1;
  });
  const moved = sections?.map((section) => ({
    ...section,
    offset:
      section.offset +
      shifts.filter((shift) => shift.at < section.offset).reduce((sum, s) => sum + s.by, 0),
  }));
  return { body: out.join('\n'), ...(moved ? { sections: moved } : {}) };
};
