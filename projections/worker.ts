import type pg from 'pg';
import { isTransientDatabaseError } from '../services/database/transient.js';
import type { EventStore, Position, RecordedEvent } from '../services/event-store/types.js';
import type { Logger } from '../services/runtime/logger.js';
import { applyBatch, CheckpointMoved, type AppliedBatch } from './apply-batch.js';
import { createBatcher } from './batching.js';
import { ensureCheckpoint, readCheckpoint, recordFailure } from './checkpoints.js';
import type { Lease, LeaseManager } from './leases.js';
import type { StatusEvent } from './status.js';
import type { FailedEvent, Projection } from './types.js';

/**
 * One projection's loop: take the lock, subscribe from the stored checkpoint, apply batches
 * until stopped, a handler fails, or the lock is lost; then (except after a failure) compete
 * for the lock again.
 */
export interface WorkerContext {
  readonly projection: Projection;
  readonly pool: pg.Pool;
  readonly eventStore: EventStore;
  readonly leases: LeaseManager;
  readonly logger: Logger;
  readonly schema: string;
  readonly notify: boolean;
  readonly batchSize: number;
  readonly lingerMs: number;
  readonly retryDelayMs: number;
  readonly update: (event: StatusEvent) => void;
  readonly committed: (batch: CommittedBatch) => void;
  readonly failed: (failure: FailedEvent) => void;
}

export interface CommittedBatch {
  readonly projection: string;
  readonly events: number;
  readonly position: Position;
  readonly full: boolean;
  readonly seconds: number;
  readonly applied: AppliedBatch;
}

type Outcome = 'stopped' | 'lost' | 'closed' | 'moved';

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

export const describeFailure = (event: RecordedEvent, error: unknown): FailedEvent => ({
  position: event.position,
  streamId: event.streamId,
  revision: event.revision.toString(),
  type: event.type,
  eventId: event.id,
  message: messageOf(error),
  failedAt: new Date().toISOString(),
});

/** Runs until `signal` aborts or a handler failure stops the projection. */
export const runWorker = async (context: WorkerContext, signal: AbortSignal): Promise<void> => {
  const { projection, logger } = context;
  const log = logger.child({ projection: projection.name });
  let failures = 0;
  // A function: the signal aborts while this loop awaits.
  const stopped = (): boolean => signal.aborted;
  while (!stopped()) {
    let lease: Lease | undefined;
    try {
      lease = await context.leases.acquire(`${context.schema}.${projection.name}`, signal, () => {
        context.update({ type: 'waiting_for_lock' });
      });
      context.update({ type: 'lock_acquired' });
      log.info('projection lock acquired; applying');
      const outcome = await follow(context, lease, signal, () => {
        failures = 0;
      });
      if (outcome === 'stopped') return;
      if (outcome === 'lost') {
        const reason = messageOf(lease.lost.reason);
        log.warn({ reason }, 'projection lock lost; waiting to take it again');
        context.update({ type: 'lock_lost', reason });
      }
    } catch (error) {
      if (stopped()) return;
      failures += 1;
      const delay = Math.min(context.retryDelayMs * 2 ** Math.min(failures - 1, 6), 30_000);
      const transient = isTransientDatabaseError(error);
      log[transient ? 'warn' : 'error'](
        { err: error, retryInMs: delay },
        'projection interrupted; retrying',
      );
      context.update({ type: 'retrying', reason: messageOf(error) });
      await sleep(delay, signal);
    } finally {
      await lease?.release();
    }
  }
};

const follow = async (
  context: WorkerContext,
  lease: Lease,
  signal: AbortSignal,
  progressed: () => void,
): Promise<Outcome> => {
  const { projection, pool, schema } = context;
  await ensureCheckpoint(pool, schema, projection.name);
  let position = (await readCheckpoint(pool, schema, projection.name))?.position ?? null;
  const stop = AbortSignal.any([signal, lease.lost]);
  let subscriptionCaughtUp = false;
  let applying = false;
  const subscription = context.eventStore.subscribeToAll({
    ...(position === null ? {} : { fromPosition: position }),
    filter: projection.filter,
    signal: stop,
    onCaughtUp: () => {
      subscriptionCaughtUp = true;
      // Events already taken are not applied yet: the batch that applies them reports it.
      setImmediate(() => {
        if (!applying && batcher.holding === 0 && !stop.aborted)
          context.update({ type: 'caught_up' });
      });
    },
  });
  const batcher = createBatcher(subscription[Symbol.asyncIterator](), {
    maxSize: context.batchSize,
    lingerMs: context.lingerMs,
  });
  const ended = (): Outcome => (signal.aborted ? 'closed' : 'lost');
  try {
    for (;;) {
      const batch = await batcher.next();
      // A batch cut short by a stop is dropped: its events follow the stored checkpoint.
      if (!batch || stop.aborted) return ended();
      applying = true;
      try {
        const result = await commit(
          context,
          batch.items,
          position,
          batch.full,
          subscriptionCaughtUp,
        );
        if (result.failed) return 'stopped';
        position = result.position;
        progressed();
      } catch (error) {
        if (error instanceof CheckpointMoved) {
          context.logger.warn(
            { projection: projection.name, err: error },
            'checkpoint moved; resubscribing',
          );
          return 'moved';
        }
        throw error;
      } finally {
        applying = false;
      }
    }
  } finally {
    await subscription.close();
  }
};

type CommitResult = { failed: false; position: Position | null } | { failed: true };

/**
 * Applies a batch; when it fails for a reason other than the database being unreachable, the
 * events are applied one by one (each with its checkpoint) to find the one that fails, and
 * the projection stops right before it.
 */
const commit = async (
  context: WorkerContext,
  events: readonly RecordedEvent[],
  from: Position | null,
  full: boolean,
  subscriptionCaughtUp: boolean,
): Promise<CommitResult> => {
  try {
    return {
      failed: false,
      position: await applyOne(context, events, from, full, subscriptionCaughtUp),
    };
  } catch (error) {
    if (error instanceof CheckpointMoved || isTransientDatabaseError(error)) throw error;
    if (events.length === 1 && events[0]) return stopAt(context, events[0], from, error);
  }
  let position = from;
  for (const [index, event] of events.entries()) {
    try {
      // Until the last event, more are waiting: the projection is running, not caught up.
      const more = index < events.length - 1;
      position = await applyOne(context, [event], position, more || full, subscriptionCaughtUp);
    } catch (error) {
      if (error instanceof CheckpointMoved || isTransientDatabaseError(error)) throw error;
      return stopAt(context, event, position, error);
    }
  }
  context.logger.warn(
    { projection: context.projection.name, events: events.length },
    'a batch failed but each of its events applied alone; continuing',
  );
  return { failed: false, position };
};

const applyOne = async (
  context: WorkerContext,
  events: readonly RecordedEvent[],
  from: Position | null,
  full: boolean,
  subscriptionCaughtUp: boolean,
): Promise<Position> => {
  const started = performance.now();
  const applied = await applyBatch(context.pool, context.projection, events, {
    schema: context.schema,
    expected: from,
    notify: context.notify,
  });
  const position = applied.notice.position;
  const seconds = (performance.now() - started) / 1000;
  context.committed({
    projection: context.projection.name,
    events: events.length,
    position,
    full,
    seconds,
    applied,
  });
  context.update({
    type: 'batch_committed',
    events: events.length,
    position,
    full,
    subscriptionCaughtUp,
  });
  return position;
};

const stopAt = async (
  context: WorkerContext,
  event: RecordedEvent,
  checkpoint: Position | null,
  error: unknown,
): Promise<CommitResult> => {
  const failure = describeFailure(event, error);
  context.logger.error(
    {
      projection: context.projection.name,
      position: event.position,
      streamId: event.streamId,
      revision: event.revision.toString(),
      type: event.type,
      eventId: event.id,
      err: error,
    },
    'projection stopped: its handler failed on an event (nothing after it is applied until restart)',
  );
  await recordFailure(
    context.pool,
    context.schema,
    context.projection.name,
    checkpoint,
    failure,
  ).catch((recordError: unknown) => {
    context.logger.warn({ err: recordError }, 'could not record the projection failure');
  });
  context.failed(failure);
  context.update({ type: 'failed', error: failure });
  return { failed: true };
};
