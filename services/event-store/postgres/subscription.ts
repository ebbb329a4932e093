import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../runtime/logger.js';
import type {
  EventFilter,
  Position,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../types.js';
import type { LogPage } from './queries.js';
import { isTransientDatabaseError } from '../../database/transient.js';
import type { Wake } from './wake.js';

export interface PollingSubscriptionDeps {
  readonly readPage: (
    after: Position | undefined,
    maxCount: number,
    filter: EventFilter | undefined,
  ) => Promise<LogPage>;
  readonly wake: Wake;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  /**
   * A follower woken sooner than this after its previous read waits out the rest before
   * reading again (0: reads at once). Under a stream of small appends each subscriber then
   * reads, and its projection applies, one page per interval instead of one per append.
   */
  readonly followSpacingMs?: number;
  readonly logger: Logger;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
const pauseFor = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch(() => undefined);

/**
 * Catch up page by page, then follow: read until a short page, wait for a wake-up (or the poll
 * interval) and the follow spacing, read again. The wake generation is taken before each read, so a wake-up that lands
 * between a read and the wait is never lost.
 */
export const createPollingSubscription = (
  deps: PollingSubscriptionDeps,
  options: SubscribeOptions,
): Subscription => {
  const controller = new AbortController();
  const external = options.signal;
  const stop = (): void => {
    controller.abort();
  };
  external?.addEventListener('abort', stop, { once: true });
  if (external?.aborted) controller.abort();
  const { signal } = controller;
  // A function, not a property read: the flag changes while the generator is suspended.
  const stopped = (): boolean => signal.aborted;

  async function* follow(): AsyncGenerator<RecordedEvent, void, undefined> {
    let cursor = options.fromPosition;
    let caughtUp = false;
    let failures = 0;
    const spacing = deps.followSpacingMs ?? 0;
    deps.wake.listen();
    try {
      while (!stopped()) {
        const generation = deps.wake.generation;
        let page: LogPage;
        const readAt = performance.now();
        try {
          page = await deps.readPage(cursor, deps.batchSize, options.filter);
          failures = 0;
        } catch (error) {
          if (!isTransientDatabaseError(error)) throw error;
          failures += 1;
          const delay = Math.min(deps.pollIntervalMs * failures, 10_000);
          deps.logger.warn({ err: error, retryInMs: delay }, 'subscription read failed; retrying');
          await deps.wake.wait(deps.wake.generation, delay, signal);
          continue;
        }
        for (const event of page.events) {
          if (stopped()) return;
          yield event;
          cursor = event.position;
        }
        if (page.scannedTo !== null && (cursor === undefined || page.scannedTo > cursor)) {
          cursor = page.scannedTo;
        }
        if (page.events.length === deps.batchSize) continue;
        if (!caughtUp) {
          caughtUp = true;
          options.onCaughtUp?.();
        }
        await deps.wake.wait(generation, deps.pollIntervalMs, signal);
        const early = spacing - (performance.now() - readAt);
        if (early > 0) await pauseFor(early, signal);
      }
    } finally {
      external?.removeEventListener('abort', stop);
    }
  }

  const iterator = follow();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: async () => {
      controller.abort();
      await iterator.return(undefined);
    },
  };
};
