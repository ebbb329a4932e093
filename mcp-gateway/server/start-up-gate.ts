import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describeStartUp, type StartUp, type StartUpProgress } from '../start-up.js';
import type { ProgressSender } from './progress.js';

/**
 * The gateway's side of start-up (`../start-up.ts`): a request that needs the catalog waits
 * for it, bounded, telling a client that asked for progress what is still running; past the
 * bound it is refused with a retry hint rather than answered from a partial catalog.
 */
export interface StartUpGate {
  readonly state: StartUp;
  /** How long one request waits before it is refused. */
  readonly waitMs: number;
}

/** Long enough for a warm restart, short enough for a client's own request timeout. */
export const DEFAULT_START_UP_WAIT_MS = 20_000;

/** Waiting progress is sent at most this often (the ingest reports every document). */
const PROGRESS_EVERY_MS = 250;

/** The `_meta` key of a refused tool call's retry hint. */
export const START_UP_META_KEY = 'cogitave/start-up';

export interface StillStarting {
  readonly progress: StartUpProgress;
  readonly retryAfterSeconds: number;
  /** "Cogitave is still starting (ingesting the catalog: 120 of 340 documents); retry in 5 s" */
  readonly message: string;
}

/** Progress notifications while waiting, the latest report at most every PROGRESS_EVERY_MS. */
const followProgress = (state: StartUp, send: ProgressSender): (() => void) => {
  let sentAt = 0;
  let trailing: NodeJS.Timeout | undefined;
  const tell = (): void => {
    trailing = undefined;
    sentAt = Date.now();
    const progress = state.progress();
    if (progress.phase === 'ready') return;
    send(
      progress.done ?? 0,
      progress.total,
      `Cogitave is starting: ${describeStartUp(progress)}`,
    ).catch(() => {
      // Progress is advice; a closed stream must not fail the call.
    });
  };
  tell();
  const unsubscribe = state.onProgress(() => {
    if (trailing !== undefined) return;
    trailing = setTimeout(tell, Math.max(0, sentAt + PROGRESS_EVERY_MS - Date.now()));
  });
  return () => {
    unsubscribe();
    clearTimeout(trailing);
  };
};

/**
 * Resolves undefined once start-up is done (at once when it is), or, after `waitMs`, with
 * what is still starting. Rejects with the signal's reason when the client cancels.
 */
export const waitForStartUp = async (
  gate: StartUpGate,
  signal: AbortSignal,
  progress: ProgressSender,
): Promise<StillStarting | undefined> => {
  const { state } = gate;
  if (state.isReady()) return undefined;
  const stopWaiting = new AbortController();
  const stopProgress = followProgress(state, progress);
  let timer: NodeJS.Timeout | undefined;
  try {
    const ready = state
      .whenReady(AbortSignal.any([signal, stopWaiting.signal]))
      .then(() => 'ready' as const);
    ready.catch(() => undefined);
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => {
        resolve('late');
      }, gate.waitMs);
    });
    if ((await Promise.race([ready, late])) === 'ready' || state.isReady()) return undefined;
    const retryAfterSeconds = state.retryAfterSeconds();
    const current = state.progress();
    return {
      progress: current,
      retryAfterSeconds,
      message: `Cogitave is still starting (${describeStartUp(current)}); retry in ${String(retryAfterSeconds)} s`,
    };
  } finally {
    clearTimeout(timer);
    stopProgress();
    stopWaiting.abort();
  }
};

/** The retry hint as data: the phase, its counts and the seconds to wait. */
export const retryHint = (starting: StillStarting): Record<string, unknown> => ({
  ...starting.progress,
  retryAfterSeconds: starting.retryAfterSeconds,
});

/**
 * A refused tool call. The hint is in `_meta`, not `structuredContent`: a 2025-era client (the
 * v1 SDK among them) validates `structuredContent` against the tool's output schema even on
 * an error, and a start-up refusal fits no tool's schema.
 */
export const stillStartingToolResult = (starting: StillStarting) => ({
  content: [{ type: 'text' as const, text: `UNAVAILABLE: ${starting.message}` }],
  isError: true,
  _meta: { [START_UP_META_KEY]: retryHint(starting) },
});

/**
 * A refused resource or completion request: -32603 (internal error), the code clients already
 * treat as the server's failure to answer now; a code of our own from the -32000..-32099
 * range would be unknown to every client. `data` carries the retry hint.
 */
export const stillStartingError = (starting: StillStarting): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InternalError, starting.message, retryHint(starting));
