/**
 * What reading a documentation folder reports: problems (errors stop an ingest, warnings do
 * not), links that go nowhere and files that are not pages, each with what to do about it.
 */
export interface CorpusIssue {
  /** Relative to the corpus root. */
  readonly file: string;
  readonly field: string;
  readonly reason: string;
  /** What to do about it. */
  readonly fix?: string;
  /** 1-based line in the file, when the problem has one. */
  readonly line?: number;
}

export interface DanglingLink {
  readonly file: string;
  readonly uid: string;
  readonly target: string;
  readonly edgeType: string;
}

export interface SkippedFile {
  readonly file: string;
  readonly reason: string;
  readonly fix?: string;
}

/** Everything a folder read collects, passed to each step. */
export interface Collected {
  readonly errors: CorpusIssue[];
  readonly warnings: CorpusIssue[];
  readonly skipped: SkippedFile[];
  readonly dangling: DanglingLink[];
  /** `file → target` of each dangling link, so a page linking twice reports it once. */
  readonly danglingKeys: Set<string>;
}

/** `a Doc`, `an ADR`, `an Article`. */
export const withArticle = (label: string): string =>
  `${/^[AEIO]/.test(label) ? 'an' : 'a'} ${label}`;
