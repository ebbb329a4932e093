/**
 * DocFX / Microsoft Learn code references: `[!code-<lang>[title](path?query#fragment)]` lines
 * and `:::code language="…" source="…" … :::` directives, read into one shape, and the code
 * they name taken out of its file as DocFX does: a named snippet (`#region Name`, or a tag in
 * the file's comment syntax, `// <Name>` … `// </Name>`, `<!-- <Name> -->`, `# <Name>`,
 * `' <Name>`), line ranges (`#L10-L20`, `range=1-3,5,7-`), the marker lines of other snippets
 * inside it removed, and the lines dedented by their common indentation (or by `dedent=N`).
 * `highlight` and `interactive` are kept as metadata: they change how Learn shows the code,
 * not which code it shows. Pure: the caller reads the files and reports the problems.
 */

/** A reference to code in another file, whatever syntax named it. */
export interface CodeReference {
  /** The file as written, without query or fragment (`../snippets/Program.cs`, `~/a/b.cs`). */
  readonly path: string;
  /** Normalised by the caller; undefined when the syntax leaves it to the file's extension. */
  readonly language: string | undefined;
  /** The `[title]` of a `[!code-…]` line (DocFX shows it nowhere; kept as a caption). */
  readonly caption: string | undefined;
  /** Snippet name (`?name=`, `#Name`, `id="…"`). */
  readonly snippet: string | undefined;
  /** Line ranges, 1-based (`1-3,5,7-`), within the snippet when there is one. */
  readonly range: string | undefined;
  readonly highlight: string | undefined;
  /** Leading whitespace to remove from each line; undefined: the common indentation. */
  readonly dedent: number | undefined;
  readonly interactive: string | undefined;
}

/** A reference that cannot be read, with what to do about it. */
export interface CodeProblem {
  readonly problem: string;
  readonly fix: string;
}

/** `[!code-csharp[Main](../snippets/Program.cs?name=Main)]`, `[!code[](a.vb#L3-L5)]`. */
const CODE_INCLUDE = /^\s*\[!code(?:-([\w#+.-]+))?\[([^\]]*)\]\(\s*([^)]*?)\s*\)\]\s*$/i;

export interface CodeIncludeLine {
  /** As written after `code-`; undefined for `[!code[…](…)]`. */
  readonly language: string | undefined;
  readonly title: string;
  /** Path with its query and fragment, as written. */
  readonly target: string;
}

export const parseCodeIncludeLine = (line: string): CodeIncludeLine | undefined => {
  const match = CODE_INCLUDE.exec(line);
  if (!match) return undefined;
  return { language: match[1], title: match[2] ?? '', target: match[3] ?? '' };
};

const WHOLE_NUMBER = /^\d+$/;
const LINE_FRAGMENT = /^L(\d+)(?:-L?(\d+))?$/i;

/** The parts of `path?name=A&range=1-3&highlight=2&dedent=4#Region` (or `#L1-L5`). */
const splitTarget = (
  target: string,
): Pick<CodeReference, 'path' | 'snippet' | 'range' | 'highlight' | 'dedent'> | CodeProblem => {
  const hashAt = target.indexOf('#');
  const fragment = hashAt === -1 ? '' : target.slice(hashAt + 1);
  const beforeHash = hashAt === -1 ? target : target.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : beforeHash.slice(queryAt + 1));
  let snippet = query.get('name') ?? query.get('id') ?? undefined;
  let range = query.get('range') ?? undefined;
  const lines = LINE_FRAGMENT.exec(fragment);
  if (lines) range = `${lines[1]}-${lines[2] ?? lines[1]}`;
  else if (fragment !== '') snippet = fragment;
  const dedentText = query.get('dedent') ?? undefined;
  if (dedentText !== undefined && !WHOLE_NUMBER.test(dedentText)) {
    return {
      problem: `dedent=${dedentText} is not a whole number`,
      fix: 'write dedent=N (N spaces), or leave it out to remove the common indentation',
    };
  }
  return {
    path: decodeURI(path.trim()),
    snippet,
    range,
    highlight: query.get('highlight') ?? undefined,
    dedent: dedentText === undefined ? undefined : Number(dedentText),
  };
};

/**
 * The reference of a directive block's attributes: a `:::code` directive (`source`, `id`,
 * `range`, `highlight`, `dedent`, `interactive`) or a `[!code-…]` line (`syntax: "[!code]"`,
 * `source` with its query and fragment, `caption`).
 */
export const codeReferenceOf = (
  attributes: Readonly<Record<string, string>>,
  language: string,
): CodeReference | CodeProblem => {
  const source = attributes.source ?? '';
  if (source.trim() === '') {
    return { problem: 'names no file', fix: 'add the path of the file to include' };
  }
  const common = {
    language: language === '' ? undefined : language,
    interactive: attributes.interactive,
  };
  if (attributes.syntax === '[!code]') {
    const parts = splitTarget(source);
    if ('problem' in parts) return parts;
    return { ...parts, ...common, caption: attributes.caption || undefined };
  }
  const dedent = attributes.dedent;
  if (dedent !== undefined && !WHOLE_NUMBER.test(dedent)) {
    return { problem: `dedent="${dedent}" is not a whole number`, fix: 'write dedent="N"' };
  }
  return {
    path: source.trim(),
    ...common,
    caption: undefined,
    snippet: attributes.id ?? attributes.name,
    range: attributes.range,
    highlight: attributes.highlight,
    dedent: dedent === undefined ? undefined : Number(dedent),
  };
};

// A snippet tag in any of the comment syntaxes DocFX reads: `// <Name>`, `# </Name>`,
// `' <Name>`, `-- <Name>`, `rem <Name>`, `% <Name>`, `; <Name>`, `<!-- <Name> -->`,
// `/* <Name> */`, `(* <Name> *)`, `{/* <Name> */}`.
const TAG_LINE =
  /^\s*(?:\/\/|#|'|--|rem\b|%|;|<!--|\/\*|\(\*|\{\/\*)\s*<(\/?)([\w.-]+)\s*>\s*(?:-->|\*\/\}?|\*\))?\s*$/i;
// `#region Name`, `#Region "Name"`, `#pragma region Name`, `//#region Name`; Python's
// `# region Name` only with a one-word name (else it is a comment about a region).
const REGION_START = /^\s*(?:\/\/\s*)?#(?:pragma\s+)?region\b\s*"?([^"]*?)"?\s*$/i;
const SPACED_REGION_START = /^\s*#\s+region\s+([\w.-]+)\s*$/i;
const REGION_END = /^\s*(?:(?:\/\/\s*)?#(?:pragma\s+)?end\s*region\b.*|#\s+endregion\s*)$/i;

interface Marker {
  readonly kind: 'tag' | 'region';
  readonly closing: boolean;
  /** Lower case; '' for a region end (`#endregion` names nothing). */
  readonly name: string;
}

/** Whether a line marks the start or end of a snippet, and which. */
export const snippetMarker = (line: string): Marker | undefined => {
  const tag = TAG_LINE.exec(line);
  if (tag) return { kind: 'tag', closing: tag[1] === '/', name: (tag[2] ?? '').toLowerCase() };
  if (REGION_END.test(line)) return { kind: 'region', closing: true, name: '' };
  const region = REGION_START.exec(line) ?? SPACED_REGION_START.exec(line);
  if (region) {
    return { kind: 'region', closing: false, name: (region[1] ?? '').trim().toLowerCase() };
  }
  return undefined;
};

/** The lines of the first snippet called `name` (markers excluded), or undefined. */
const snippetLines = (lines: readonly string[], name: string): string[] | undefined => {
  const wanted = name.toLowerCase();
  const start = lines.findIndex((line) => {
    const marker = snippetMarker(line);
    return marker !== undefined && !marker.closing && marker.name === wanted;
  });
  if (start === -1) return undefined;
  const startMarker = snippetMarker(lines[start] ?? '');
  let depth = 0;
  const body: string[] = [];
  for (let i = start + 1; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const marker = snippetMarker(line);
    if (!marker) {
      body.push(line);
      continue;
    }
    if (startMarker?.kind === 'tag' && marker.kind === 'tag' && marker.name === wanted) {
      if (marker.closing) return body;
    } else if (startMarker?.kind === 'region' && marker.kind === 'region') {
      // `#endregion` names nothing: the one that closes the start is the one at depth 0.
      if (marker.closing && depth === 0) return body;
      depth += marker.closing ? -1 : 1;
    }
  }
  return undefined;
};

/** Lines picked by `1-3,5,7-` (1-based); a problem when a part is malformed or past the end. */
const rangeLines = (lines: readonly string[], range: string): string[] | CodeProblem => {
  const picked: string[] = [];
  for (const part of range.split(',').map((p) => p.trim())) {
    const match = /^(\d+)?(?:(-)(\d+)?)?$/.exec(part);
    if (!match || part === '' || part === '-') {
      return {
        problem: `range "${range}" is not a list of N, N-M or N- parts`,
        fix: 'write the range as 1-3,5,7-',
      };
    }
    const from = Number(match[1] ?? '1');
    const to = match[2] ? (match[3] === undefined ? lines.length : Number(match[3])) : from;
    if (from < 1 || from > lines.length || to < from) {
      return {
        problem: `range "${range}" asks for lines ${part}, but there are ${lines.length}`,
        fix: `keep the range within lines 1-${lines.length}`,
      };
    }
    picked.push(...lines.slice(from - 1, Math.min(to, lines.length)));
  }
  return picked;
};

const leadingSpace = (line: string): number => /^[ \t]*/.exec(line)?.[0].length ?? 0;

/** Removes `by` leading whitespace characters (or, undefined, the common indentation). */
export const dedentLines = (lines: readonly string[], by: number | undefined): string[] => {
  const filled = lines.filter((line) => line.trim() !== '');
  const amount = by ?? Math.min(...filled.map(leadingSpace), Infinity);
  if (!Number.isFinite(amount) || amount === 0) return [...lines];
  return lines.map((line) => line.slice(Math.min(amount, leadingSpace(line))));
};

/** The code a reference names in a file's text, as Learn shows it. */
export const extractCode = (text: string, reference: CodeReference): string | CodeProblem => {
  let lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const { snippet } = reference;
  if (snippet !== undefined) {
    // Old DocFX samples name `<Snippet1>` by its number alone (`#1`).
    const found =
      snippetLines(lines, snippet) ??
      (WHOLE_NUMBER.test(snippet) ? snippetLines(lines, `snippet${snippet}`) : undefined);
    if (found === undefined) {
      return {
        problem: `has no snippet "${snippet}" (no #region ${snippet} or <${snippet}> … </${snippet}> comment pair)`,
        fix: `mark the code in the file with // <${snippet}> and // </${snippet}> (in its comment syntax), or fix the name`,
      };
    }
    lines = found;
  }
  if (reference.range !== undefined) {
    const ranged = rangeLines(lines, reference.range);
    if (!Array.isArray(ranged)) return ranged;
    lines = ranged;
  }
  return dedentLines(lines, reference.dedent).join('\n');
};

const EXTENSION_LANGUAGES: Readonly<Record<string, string>> = {
  cs: 'csharp',
  csx: 'csharp',
  vb: 'vb',
  fs: 'fsharp',
  fsx: 'fsharp',
  cpp: 'cpp',
  cc: 'cpp',
  h: 'cpp',
  hpp: 'cpp',
  c: 'c',
  xaml: 'xml',
  xml: 'xml',
  csproj: 'xml',
  config: 'xml',
  html: 'html',
  cshtml: 'cshtml',
  razor: 'razor',
  css: 'css',
  ps1: 'powershell',
  sql: 'sql',
  kt: 'kotlin',
  swift: 'swift',
  rb: 'ruby',
  php: 'php',
  bicep: 'bicep',
  tf: 'terraform',
};

/** A file's language by its extension, for references that do not name one. */
export const languageOfFile = (
  file: string,
  known: Readonly<Record<string, string>>,
): string | undefined => {
  const extension = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? '';
  return known[extension] ?? EXTENSION_LANGUAGES[extension];
};
