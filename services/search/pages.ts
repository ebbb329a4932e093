import { compareMonikers } from '../catalog/site.js';
import {
  blockWindow,
  cutBlock,
  joinUnits,
  readableText,
  readableUnits,
  type ReadableUnit,
} from './readable.js';

/**
 * Search answers with pages, not copies: the versions of a page (the same site path in
 * several version folders) are one hit that lists them, standing for the newest released
 * version the search found (or the asked moniker's); and each hit names the section of its
 * page that answers best, with a short excerpt of it.
 */
export interface PageSectionRef {
  readonly anchor: string;
  readonly heading: string;
  readonly level: number;
  readonly offset: number;
}

export interface SectionHit {
  /** null: the text before the first heading. */
  readonly anchor: string | null;
  readonly heading: string;
  /** Headings from the page's top down to this section. */
  readonly path: readonly string[];
  /** A few hundred words of the section, around where the query's terms are. */
  readonly excerpt: string;
}

/** Versions of one page: the moniker each node of it carries. */
export interface PageVersions {
  readonly uids: readonly string[];
  readonly monikers: readonly string[];
}

/** The version a collapsed hit stands for, among the page's nodes the search found. */
export const preferredVersion = (
  candidates: readonly { readonly id: string; readonly monikers: readonly string[] }[],
): string | undefined => {
  const rank = (monikers: readonly string[]): string => {
    if (monikers.includes('latest')) return 'latest';
    return [...monikers].sort(compareMonikers)[0] ?? 'latest';
  };
  const sorted = [...candidates].sort((a, b) => {
    const x = rank(a.monikers);
    const y = rank(b.monikers);
    if (x === y) return 0;
    if (x === 'latest') return -1;
    if (y === 'latest') return 1;
    return compareMonikers(x, y);
  });
  return sorted[0]?.id;
};

const EXCERPT_CHARS = 1200;

/**
 * Markdown to text for counting terms (link targets, HTML tags and emphasis markers out), not
 * for display: excerpts use readable.ts, which keeps code as written.
 */
export const plainText = (markdown: string): string =>
  markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>\n]+>/g, ' ')
    .replace(/\*{1,3}(?=\S)|(?<=\S)\*{1,3}/g, '')
    // Underscores inside a word are not emphasis (CommonMark): `get_request` keeps them, as the
    // index, which reads the raw text, does.
    .replace(/(?<![\p{L}\p{N}_])_{1,3}(?=\S)|(?<=\S)_{1,3}(?![\p{L}\p{N}_])/gu, '');

interface Slice {
  readonly anchor: string | null;
  readonly heading: string;
  readonly path: readonly string[];
  /** Where its text is in the body: [from, to). */
  readonly from: number;
  readonly to: number;
  /** Its passage: 0 the text before the first heading, i + 1 the section i. */
  readonly passage: number;
}

/**
 * A page's text, read a range at a time: a string is one, and so is a page the search keeps
 * compressed in pieces (entries.ts), which then only decompresses the pieces a range needs.
 */
export interface PageText {
  readonly length: number;
  /** Characters [start, end), both non-negative (beyond the end: up to it). */
  slice(start: number, end: number): string;
}

/**
 * Per passage of a page (the text before the first heading, then each section, as
 * `passageOffsets` cuts it): how often each query term occurs, and its length in terms, as the
 * search index counted them.
 */
export interface PageCounts {
  readonly counts: readonly ReadonlyMap<string, number>[];
  readonly lengths: readonly number[];
}

/** Where a page's passages start: its beginning, then each section's heading line. */
export const passageOffsets = (sections: readonly PageSectionRef[]): number[] => [
  0,
  ...sections.map((section) => section.offset),
];

const slices = (title: string, body: PageText, sections: readonly PageSectionRef[]): Slice[] => {
  const out: Slice[] = [];
  const first = sections[0]?.offset ?? body.length;
  if (first > 0 && body.slice(0, first).trim() !== '') {
    out.push({ anchor: null, heading: title, path: [title], from: 0, to: first, passage: 0 });
  }
  const stack: PageSectionRef[] = [];
  sections.forEach((section, index) => {
    while ((stack.at(-1)?.level ?? 0) >= section.level) stack.pop();
    stack.push(section);
    out.push({
      anchor: section.anchor,
      heading: section.heading,
      path: stack.map((s) => s.heading),
      from: section.offset,
      to: sections[index + 1]?.offset ?? body.length,
      passage: index + 1,
    });
  });
  return out;
};

// Sections longer than this are parsed only around their first query term.
const PARSED_CHARS = 32_000;
const WORD = /[\p{L}\p{N}_]+/gu;

/** Where in `text` the first word with a query term is (0 when none is). */
const firstTermAt = (
  text: string,
  terms: ReadonlySet<string>,
  analyze: (t: string) => string[],
): number => {
  for (const match of text.matchAll(WORD)) {
    if (analyze(match[0]).some((term) => terms.has(term))) return match.index;
  }
  return 0;
};

/**
 * About EXCERPT_CHARS characters of `text` as people read it, starting near its first query
 * term: prose plain, code spans and code blocks as the page writes them, never cut inside a
 * code span (readable.ts). The query's terms only choose where it starts: what it shows is the
 * page's own text.
 */
const excerptOf = (
  text: string,
  terms: ReadonlySet<string>,
  analyze: (t: string) => string[],
): string => {
  let markdown = text;
  if (text.length > PARSED_CHARS) {
    const at = firstTermAt(text, terms, analyze);
    const { start, end } = blockWindow(text, Math.max(0, at - 2000), at + EXCERPT_CHARS * 4);
    markdown = text.slice(start, end);
  }
  const readable = readableText(markdown);
  if (readable.length <= EXCERPT_CHARS) return readable;
  const units = readableUnits(readable);
  let start = 0;
  for (let i = 0; i < units.length; i += 1) {
    if (analyze(units[i]?.text ?? '').some((term) => terms.has(term))) {
      start = Math.max(0, i - 15);
      break;
    }
  }
  const kept: ReadableUnit[] = start > 0 ? [{ text: '…', block: false }] : [];
  let length = 0;
  let next = start;
  for (; next < units.length && length < EXCERPT_CHARS; next += 1) {
    const unit = units[next] as ReadableUnit;
    const room = Math.max(EXCERPT_CHARS - length, 200);
    kept.push(unit.block ? { text: cutBlock(unit.text, room), block: true } : unit);
    length += unit.text.length + 1;
  }
  if (next < units.length) kept.push({ text: '…', block: false });
  return joinUnits(kept);
};

const K1 = 1.2;
const B = 0.75;

/**
 * The section of a page that answers the query best: each section (heading path counted
 * twice, as the index counts headings) scored by BM25 with the corpus's term weights; the
 * page's intro when no section mentions a query term. With `counts` (the search index's own
 * count of the query's terms per passage) the page's text is read only for the excerpt: a
 * page can be hundreds of kilobytes, and analysing each hit's page was most of a search.
 */
export const bestSection = (
  page: {
    readonly title: string;
    readonly body: PageText;
    readonly sections: readonly PageSectionRef[];
  },
  weights: ReadonlyMap<string, number>,
  analyze: (text: string) => string[],
  indexCounts?: PageCounts,
): SectionHit | undefined => {
  const parts = slices(page.title, page.body, page.sections);
  if (parts.length === 0) return undefined;
  // Each heading is analysed once, not once per section whose path it heads (the analyzer
  // works word by word, so a path's terms are its headings' terms in turn).
  const headingTerms = new Map<string, string[]>();
  const termsOf = (heading: string): string[] => {
    let terms = headingTerms.get(heading);
    if (terms === undefined) headingTerms.set(heading, (terms = analyze(heading)));
    return terms;
  };
  // Only the query's terms are counted (a section's other terms only count in its length):
  // no map of every term of every section of the page, which was most of a query's time.
  const scored = parts.map((part) => {
    const counted = new Map<string, number>();
    let length = 0;
    const count = (terms: readonly string[], times: number): void => {
      length += terms.length * times;
      for (const term of terms) {
        if (weights.has(term)) counted.set(term, (counted.get(term) ?? 0) + times);
      }
    };
    // The heading path counts twice, as the index counts headings.
    for (const heading of part.path) count(termsOf(heading), 2);
    const indexed = indexCounts?.counts[part.passage];
    if (indexed === undefined) count(analyze(plainText(page.body.slice(part.from, part.to))), 1);
    else {
      length += indexCounts?.lengths[part.passage] ?? 0;
      for (const [term, times] of indexed) {
        if (weights.has(term)) counted.set(term, (counted.get(term) ?? 0) + times);
      }
    }
    return { part, counts: counted, length };
  });
  const average = scored.reduce((sum, s) => sum + s.length, 0) / scored.length || 1;
  let best = scored[0];
  let bestScore = 0;
  for (const candidate of scored) {
    let score = 0;
    for (const [term, tf] of candidate.counts) {
      const idf = weights.get(term) ?? 0;
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * candidate.length) / average));
    }
    if (score > bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  if (!best) return undefined;
  return {
    anchor: best.part.anchor,
    heading: best.part.heading,
    path: best.part.path,
    excerpt: excerptOf(
      page.body.slice(best.part.from, best.part.to),
      new Set(weights.keys()),
      analyze,
    ),
  };
};
