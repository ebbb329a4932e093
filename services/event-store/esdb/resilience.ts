/**
 * How the EventStoreDB adapter rides out a node or network that fails for a while: transient
 * failures are retried with backoff for a bounded time, and reads that stop sending are
 * cancelled rather than waited on forever (the client gives reads no deadline).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Unavailable } from '../../runtime/errors.js';
import { toCogitaveError } from './mapping.js';

export interface RetryPolicy {
  /** Retries stop once this long has passed since the first attempt. */
  readonly forMs: number;
  /** Pause before the first retry; it doubles up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

export interface RetryHooks {
  readonly signal?: AbortSignal;
  /** Called before each pause with the error that caused it. */
  readonly onRetry?: (error: Unavailable, attempt: number, delayMs: number) => void;
}

/**
 * Runs `attempt` until it succeeds, fails with anything but `Unavailable` (after mapping the
 * client's errors), or the policy's time is up; then the last error is thrown, mapped.
 */
export const retryTransient = async <T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  hooks: RetryHooks = {},
): Promise<T> => {
  const giveUpAt = Date.now() + policy.forMs;
  for (let n = 1; ; n += 1) {
    try {
      return await attempt(n);
    } catch (error) {
      const mapped = toCogitaveError(error);
      if (!(mapped instanceof Unavailable) || hooks.signal?.aborted) throw mapped;
      // Jittered, so writers that failed together do not come back together.
      const base = Math.min(policy.firstDelayMs * 2 ** (n - 1), policy.maxDelayMs);
      const delay = Math.min(base / 2 + Math.random() * (base / 2), giveUpAt - Date.now());
      if (delay <= 0) throw mapped;
      hooks.onRetry?.(mapped, n, delay);
      await sleep(delay, undefined, hooks.signal ? { signal: hooks.signal } : {}).catch(() => {
        throw mapped;
      });
    }
  }
};

/** A read of the client: an async iterable that can be cancelled. */
export interface CancellableRead<T> extends AsyncIterable<T> {
  cancel(): Promise<void>;
}

/**
 * Collects a read, cancelling it when nothing arrives for `idleMs` (a node that accepted the
 * call and then stalled, or a connection that died without a reset): that is an Unavailable,
 * which the caller may retry, since reads change nothing.
 */
export const collectRead = async <T>(read: CancellableRead<T>, idleMs: number): Promise<T[]> => {
  const items: T[] = [];
  const iterator = read[Symbol.asyncIterator]();
  let stall: (error: Unavailable) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => {
    stall = reject;
  });
  // Handled here: a stall that happens while nobody awaits the race must not go unhandled.
  stalled.catch(() => undefined);
  const timer = setTimeout(() => {
    stall(new Unavailable(`EventStoreDB sent nothing for ${idleMs} ms; the read was cancelled`));
  }, idleMs);
  try {
    for (;;) {
      const next = iterator.next();
      next.catch(() => undefined);
      const result = await Promise.race([next, stalled]);
      if (result.done) return items;
      items.push(result.value);
      timer.refresh();
    }
  } catch (error) {
    await read.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
    void iterator.return?.().catch(() => undefined);
  }
};
