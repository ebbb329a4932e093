import type pg from 'pg';
import { isTransientDatabaseError } from '../../database/transient.js';
import type { Position, RecordedEvent } from '../../event-store/types.js';
import type { Logger } from '../../runtime/logger.js';
import { recordFailure, saveCheckpoint } from '../checkpoint.js';
import { backoffMs, sleep } from '../client.js';
import { classify, describeError } from './errors.js';
import type { MutableStatus, ReactorRetryOptions } from './status.js';

/**
 * Each event until it succeeds or fails for good. Transient failures (GitHub down, rate limits,
 * the database restarting, bad credentials being fixed) are retried with backoff on the same
 * event; an event that cannot succeed is logged with its position, recorded in
 * `github_reactor.failures`, listed in the status, and skipped.
 */
export interface RetryContext {
  readonly pool: pg.Pool;
  /** Checkpoint name. */
  readonly name: string;
  readonly logger: Logger;
  readonly clock: () => Date;
  readonly retry: ReactorRetryOptions;
  readonly status: MutableStatus;
}

export type Outcome = 'handled' | 'failed';

/** Leaves `retrying` for where the reactor stands in the log. */
const recovered = (status: MutableStatus): void => {
  status.retrying = undefined;
  if (status.state === 'retrying') status.state = status.caughtUp ? 'live' : 'catching-up';
};

const failForGood = async (
  ctx: RetryContext,
  event: RecordedEvent,
  attempt: number,
  message: string,
): Promise<void> => {
  const { status, logger } = ctx;
  const failure = {
    eventId: event.id,
    position: event.position,
    streamId: event.streamId,
    eventType: event.type,
    error: message,
  };
  logger.error({ ...failure, attempt }, 'event failed for good; skipped');
  await recordFailure(ctx.pool, ctx.name, failure).catch((dbError: unknown) => {
    logger.warn({ err: dbError }, 'could not record the failure');
  });
  status.failures = [{ ...failure, failedAt: ctx.clock().toISOString() }, ...status.failures].slice(
    0,
    50,
  );
  recovered(status);
};

export const handleWithRetry = async (
  ctx: RetryContext,
  event: RecordedEvent,
  signal: AbortSignal,
  handle: (event: RecordedEvent, signal: AbortSignal) => Promise<void>,
): Promise<Outcome> => {
  const { status, retry } = ctx;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await handle(event, signal);
      if (status.state === 'retrying') status.state = status.caughtUp ? 'live' : 'catching-up';
      status.retrying = undefined;
      return 'handled';
    } catch (error) {
      signal.throwIfAborted();
      const kind = classify(error);
      const message = describeError(error);
      if (kind === 'permanent' || (kind === 'unknown' && attempt >= retry.unknownErrorAttempts)) {
        await failForGood(ctx, event, attempt, message);
        return 'failed';
      }
      const waitMs = backoffMs(attempt, retry);
      status.state = 'retrying';
      status.lastError = message;
      status.retrying = {
        eventId: event.id,
        position: event.position,
        type: event.type,
        attempt,
        error: message,
      };
      ctx.logger.warn(
        {
          eventId: event.id,
          position: event.position,
          type: event.type,
          attempt,
          waitMs,
          error: message,
        },
        'event failed; retrying',
      );
      await sleep(waitMs, signal);
    }
  }
};

/** The checkpoint after each handled event, retried while the database is away. */
export const persistCheckpoint = async (
  ctx: RetryContext,
  position: Position,
  signal: AbortSignal,
): Promise<void> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await saveCheckpoint(ctx.pool, ctx.name, position);
      return;
    } catch (error) {
      signal.throwIfAborted();
      if (!isTransientDatabaseError(error)) throw error;
      await sleep(backoffMs(attempt, ctx.retry), signal);
    }
  }
};
