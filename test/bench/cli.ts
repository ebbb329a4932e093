/**
 * What the bench scripts share around their work: usage errors, Ctrl-C, and the exit code of
 * a run (0 done, 1 failed, 2 usage, 130 interrupted).
 */
export class UsageError extends Error {}

/** Thrown (or given as the abort reason) when Ctrl-C stopped a run. */
export class Interrupted extends Error {}

/** `value` as a whole number of at least 1 (`1_000_000` allowed); a UsageError naming `what`. */
export const wholeNumber = (value: string, what: string): number => {
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${what} must be a whole number of at least 1 (got "${value}")`);
  }
  return n;
};

export interface BenchMain<Settings> {
  readonly usage: string;
  /** Throws a UsageError for a bad flag or variable; anything else is a failure. */
  readonly readSettings: () => Settings;
  /** The work and its report; stops at the next step once `signal` is aborted. */
  readonly run: (settings: Settings, signal: AbortSignal) => Promise<void>;
  /** Printed when Ctrl-C stopped the run (default "interrupted"). */
  readonly interrupted?: string;
}

/** Runs a bench script's main and returns its exit code. */
export const runBench = async <Settings>(bench: BenchMain<Settings>): Promise<number> => {
  let settings: Settings;
  try {
    settings = bench.readSettings();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${bench.usage}\n`);
    return 2;
  }
  // Ctrl-C stops the work at its next step and lets its cleanup run.
  const stop = new AbortController();
  process.once('SIGINT', () => {
    stop.abort(new Interrupted('interrupted'));
  });
  try {
    await bench.run(settings, stop.signal);
    return 0;
  } catch (error) {
    if (stop.signal.aborted || error instanceof Interrupted) {
      process.stderr.write(`${bench.interrupted ?? 'interrupted'}\n`);
      return 130;
    }
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
};
