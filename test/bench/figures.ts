import { appendFileSync } from 'node:fs';

/**
 * The headline figures of a benchmark, for the one-table report `npm run bench` writes. Each
 * script prints its own detailed Markdown; when `BENCH_FIGURES_FILE` is set it also appends one
 * JSON line per headline figure here, so the report never parses prose.
 */
export interface BenchFigure {
  /** The npm script, e.g. `bench:append`. */
  readonly bench: string;
  /** What was measured, e.g. `append throughput, 8 writers, 1 event/append`. */
  readonly figure: string;
  readonly value: number;
  /** e.g. `appends/s`, `ms`, `events/s`. */
  readonly unit: string;
  /** The baseline run in the same process or run, when there is one. */
  readonly baseline?: { readonly name: string; readonly value: number } | undefined;
  /** ours/baseline (or baseline/ours for latencies, as the script states in `figure`). */
  readonly ratio?: number | undefined;
  /** The target, as text (`≥ 0.8×`, `p99 ≤ 15 ms`). */
  readonly target?: string | undefined;
  /** Whether the target is met; absent without a target. */
  readonly met?: boolean | undefined;
}

export const FIGURES_FILE_ENV = 'BENCH_FIGURES_FILE';

/** Appends figures to `BENCH_FIGURES_FILE`; a no-op when it is not set. */
export const recordFigures = (figures: readonly BenchFigure[]): void => {
  const file = process.env[FIGURES_FILE_ENV];
  if (!file || figures.length === 0) return;
  appendFileSync(file, figures.map((figure) => `${JSON.stringify(figure)}\n`).join(''));
};
