/**
 * The process's start-up as MCP sees it: whether the tools can answer from the whole catalog
 * yet, and if not, what is still running. Parts of the process (the catalog start-up ingest,
 * the search index build) each register a step and report it; the gateway consults the whole,
 * so that no tool answers from a catalog that is still being ingested.
 */

/** What a step is doing, in the order a first start goes through them. */
export type StartUpPhase = 'ingesting' | 'projecting' | 'indexing' | 'ready';

export interface StartUpProgress {
  readonly phase: StartUpPhase;
  /** Units done and expected in this phase (documents, events), when the step counts them. */
  readonly done?: number;
  readonly total?: number;
}

/** What the gateway reads. */
export interface StartUp {
  isReady(): boolean;
  /** The first unfinished step's progress ({phase: 'ready'} once every step is done). */
  progress(): StartUpProgress;
  /** Resolves once ready; rejects with the signal's reason if it aborts first. */
  whenReady(signal?: AbortSignal): Promise<void>;
  /** Called on each report until ready (and once when ready); returns the unsubscribe. */
  onProgress(listener: (progress: StartUpProgress) => void): () => void;
  /** Seconds a caller should wait before retrying, estimated from the current step's pace. */
  retryAfterSeconds(): number;
  /** `whenReady` calls pending right now (a cancelled call stops waiting at once). */
  waiting(): number;
}

/** What a part of the process reports through. */
export interface StartUpStep {
  report(phase: Exclude<StartUpPhase, 'ready'>, done?: number, total?: number): void;
  /** Finished, well or not: a step that cannot finish is logged by its owner, not waited for. */
  done(): void;
}

export interface StartUpState extends StartUp {
  /** Registers a step; the process is ready once every registered step is done. */
  step(name: string, phase: Exclude<StartUpPhase, 'ready'>): StartUpStep;
}

interface StepRecord {
  readonly name: string;
  progress: StartUpProgress;
  /** When the current phase was first reported with counts, and how many were done then. */
  paceFrom: { readonly at: number; readonly done: number } | undefined;
  finished: boolean;
}

/** Without a pace to go by, a caller is told to retry after this long. */
const DEFAULT_RETRY_S = 5;
const MAX_RETRY_S = 60;

/** The retry hint: the remaining units at the pace seen so far, within 1..60 s. */
export const estimateRetrySeconds = (
  progress: StartUpProgress,
  pace: { readonly at: number; readonly done: number } | undefined,
  now: number,
): number => {
  const { done, total } = progress;
  if (done === undefined || total === undefined || pace === undefined || done <= pace.done)
    return DEFAULT_RETRY_S;
  const perUnitMs = (now - pace.at) / (done - pace.done);
  const seconds = Math.ceil(((total - done) * perUnitMs) / 1000);
  return Math.min(MAX_RETRY_S, Math.max(1, seconds));
};

const PHASE_TEXT: Readonly<Record<StartUpPhase, string>> = {
  ingesting: 'ingesting the catalog',
  projecting: 'applying the catalog to its read model',
  indexing: 'building the search index',
  ready: 'ready',
};

const UNIT: Readonly<Record<StartUpPhase, string>> = {
  ingesting: 'documents',
  projecting: 'events',
  indexing: 'documents',
  ready: '',
};

/** "ingesting the catalog: 120 of 340 documents", or the phase alone without counts. */
export const describeStartUp = (progress: StartUpProgress): string => {
  const text = PHASE_TEXT[progress.phase];
  if (progress.done === undefined || progress.total === undefined) return text;
  return `${text}: ${String(progress.done)} of ${String(progress.total)} ${UNIT[progress.phase]}`;
};

export const createStartUp = (clock: () => number = Date.now): StartUpState => {
  const steps: StepRecord[] = [];
  const listeners = new Set<(progress: StartUpProgress) => void>();
  let waiters = 0;
  const current = (): StepRecord | undefined => steps.find((step) => !step.finished);
  const isReady = (): boolean => current() === undefined;
  const progress = (): StartUpProgress => current()?.progress ?? { phase: 'ready' };
  const announce = (): void => {
    const now = progress();
    for (const listener of [...listeners]) listener(now);
  };
  const onProgress = (listener: (progress: StartUpProgress) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

  const whenReady = (signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason as Error);
        return;
      }
      if (isReady()) {
        resolve();
        return;
      }
      waiters += 1;
      const stop = (): void => {
        waiters -= 1;
        unsubscribe();
        signal?.removeEventListener('abort', aborted);
      };
      const aborted = (): void => {
        stop();
        reject(signal?.reason as Error);
      };
      const unsubscribe = onProgress(() => {
        if (!isReady()) return;
        stop();
        resolve();
      });
      signal?.addEventListener('abort', aborted, { once: true });
    });

  const step = (name: string, phase: Exclude<StartUpPhase, 'ready'>): StartUpStep => {
    const record: StepRecord = { name, progress: { phase }, paceFrom: undefined, finished: false };
    steps.push(record);
    return {
      report: (next, done, total) => {
        if (record.finished) return;
        const samePhase = record.progress.phase === next;
        record.progress = {
          phase: next,
          ...(done === undefined ? {} : { done }),
          ...(total === undefined ? {} : { total }),
        };
        if (!samePhase || done === undefined) record.paceFrom = undefined;
        if (record.paceFrom === undefined && done !== undefined)
          record.paceFrom = { at: clock(), done };
        announce();
      },
      done: () => {
        if (record.finished) return;
        record.finished = true;
        announce();
      },
    };
  };

  return {
    step,
    isReady,
    progress,
    whenReady,
    onProgress,
    retryAfterSeconds: () => {
      const step = current();
      return step ? estimateRetrySeconds(step.progress, step.paceFrom, clock()) : 0;
    },
    waiting: () => waiters,
  };
};
