/** The limits of the bounded query profile, in one place (the tool description quotes them). */
export const GRAPH_QUERY_BOUNDS = {
  /** Most hops a variable-length relationship may span (`*1..4`). */
  maxHops: 4,
  /** Rows returned when the query has no LIMIT. */
  defaultLimit: 100,
  /** Largest LIMIT accepted. */
  maxLimit: 1000,
  /** Most node patterns one query may name (each is a join). */
  maxNodePatterns: 12,
  /** Largest SKIP accepted (deep pages are cheaper as a narrower WHERE). */
  maxSkip: 10_000,
  /** Default per-query statement timeout. */
  defaultTimeoutMs: 2000,
  /** Patterns whose estimated intermediate rows exceed this are refused before running. */
  defaultMaxEstimatedRows: 1_000_000,
} as const;
