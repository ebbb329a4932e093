import type { Leadership, Lease } from '../../database/leadership.js';
import type { EventFilter, EventStore, RecordedEvent } from '../../event-store/types.js';
import { loadCheckpoint, loadFailures, loadUndecidedMerges } from '../checkpoint.js';
import { backoffMs, githubStatus, sleep } from '../client.js';
import { describeError } from './errors.js';
import { handleWithRetry, persistCheckpoint, type RetryContext } from './retry.js';
import type { UndecidedMerges } from './undecided.js';

/**
 * Following the log: from the stored checkpoint, each event handled (with retries) and the
 * checkpoint written after it; on server Postgres only while this process holds the reactor's
 * lock. A failure of the subscription itself restarts from the checkpoint, with backoff.
 */
export interface FollowContext extends RetryContext {
  readonly eventStore: EventStore;
  readonly filter: EventFilter;
  readonly repository: string;
  readonly undecided: UndecidedMerges;
  /** Server Postgres: one reactor across processes. Omitted: this process is the only one. */
  readonly leadership?: Leadership | undefined;
  readonly handle: (event: RecordedEvent, signal: AbortSignal) => Promise<void>;
}

const consume = async (ctx: FollowContext, signal: AbortSignal): Promise<void> => {
  const { pool, name, status, logger } = ctx;
  const checkpoint = await loadCheckpoint(pool, name);
  const failures = await loadFailures(pool, name);
  const waiting = await loadUndecidedMerges(pool, name);
  // All at once: a status read meanwhile shows the stored state whole, never half of it.
  ctx.undecided.replaceWith(waiting);
  status.failures = failures;
  status.checkpoint = checkpoint ?? null;
  status.caughtUp = false;
  status.state = 'catching-up';
  logger.info(
    { checkpoint: checkpoint ?? 'start of the log', repository: ctx.repository },
    'GitHub reactor following the log',
  );
  const subscription = ctx.eventStore.subscribeToAll({
    fromPosition: checkpoint,
    filter: ctx.filter,
    signal,
    onCaughtUp: () => {
      status.caughtUp = true;
      if (status.state === 'catching-up') status.state = 'live';
    },
  });
  try {
    for await (const event of subscription) {
      await handleWithRetry(ctx, event, signal, ctx.handle);
      await persistCheckpoint(ctx, event.position, signal);
      status.checkpoint = event.position;
      status.handled += 1;
    }
  } finally {
    await subscription.close();
  }
};

/** Follows the log until `signal` aborts. */
export const followLog = async (ctx: FollowContext, signal: AbortSignal): Promise<void> => {
  const { status, logger } = ctx;
  // A function, not a property read: TypeScript would keep `signal.aborted` narrowed to
  // false across the awaits below.
  const stopping = (): boolean => signal.aborted;
  let failuresInARow = 0;
  while (!stopping()) {
    let lease: Lease | undefined;
    try {
      if (ctx.leadership) {
        status.state = 'standby';
        lease = await ctx.leadership.acquire(signal);
      }
      await consume(ctx, lease ? AbortSignal.any([signal, lease.lost]) : signal);
      failuresInARow = 0;
    } catch (error) {
      if (stopping()) break;
      if (lease?.lost.aborted) {
        logger.warn('lost the reactor lock; standing by');
        continue;
      }
      failuresInARow += 1;
      status.state = 'restarting';
      status.lastError = describeError(error);
      const waitMs = backoffMs(failuresInARow, ctx.retry);
      logger.error(
        // GitHub errors carry request and response objects: log their status and message only.
        {
          ...(githubStatus(error) === undefined ? { err: error } : { error: describeError(error) }),
          waitMs,
        },
        'GitHub reactor stopped; restarting from its checkpoint',
      );
      await sleep(waitMs, signal).catch(() => undefined);
    } finally {
      await lease?.release();
    }
  }
};
