import { setTimeout as sleep } from 'node:timers/promises';
import { START, type AllStreamSubscription } from '@eventstore/db-client';
import { Unavailable } from '../../runtime/errors.js';
import type { RecordedEvent, SubscribeOptions, Subscription } from '../types.js';
import type { EsdbConnection } from './connection.js';
import {
  fromClientEvent,
  toClientPosition,
  toCogitaveError,
  toFilterPlan,
  toPosition,
} from './mapping.js';
import { isBeyond } from './reads.js';

const MAX_RESUBSCRIBE_DELAY_MS = 10_000;

/**
 * A catch-up subscription on the client's subscribeToAll, re-subscribed from the last seen
 * position when the connection drops (as the Postgres adapter retries transient errors).
 */
export const follow = (
  { client, logger }: EsdbConnection,
  subscribe: SubscribeOptions,
): Subscription => {
  const { server, accepts } = toFilterPlan(subscribe.filter);
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  subscribe.signal?.addEventListener('abort', stop, { once: true });
  if (subscribe.signal?.aborted) controller.abort();
  const { signal } = controller;
  // A function, not `signal.aborted` inline: the compiler would keep the loop's narrowing.
  const stopped = (): boolean => signal.aborted;
  let source: AllStreamSubscription | undefined;
  signal.addEventListener(
    'abort',
    () => {
      source?.destroy();
    },
    { once: true },
  );

  async function* events(): AsyncGenerator<RecordedEvent, void, undefined> {
    let checkpoint = subscribe.fromPosition;
    let caughtUp = false;
    let failures = 0;
    try {
      while (!signal.aborted) {
        const current = client.subscribeToAll({
          fromPosition: checkpoint ? toClientPosition(checkpoint) : START,
          filter: server,
        });
        source = current;
        // Errors reach us through the iterator; this keeps a late one (after the iterator
        // let go of the stream) from becoming an uncaught 'error' event.
        current.on('error', () => undefined);
        const iterator = current[Symbol.asyncIterator]();
        // 'caughtUp' (servers 23.10+; older ones never send it, so onCaughtUp is not called)
        // arrives while earlier events may still be buffered in the stream: call onCaughtUp
        // only once the consumer has been given every one of them, as the Postgres adapter does.
        let consumed = 0;
        let dueAt: number | undefined;
        let waiting = false;
        const callIfDue = (): void => {
          if (caughtUp || dueAt === undefined || consumed < dueAt) return;
          caughtUp = true;
          subscribe.onCaughtUp?.();
        };
        current.once('caughtUp', () => {
          dueAt = consumed + current.readableLength;
          if (waiting) callIfDue();
        });
        try {
          for (;;) {
            waiting = true;
            const next = await iterator.next();
            waiting = false;
            if (next.done) throw new Unavailable('EventStoreDB ended the subscription');
            consumed += 1;
            failures = 0;
            const { event } = next.value;
            const position = event && toPosition(event.position);
            if (event && position && isBeyond(position, checkpoint, 'forwards')) {
              // Filtered-out events move the checkpoint too: a resubscription skips them.
              checkpoint = position;
              if (accepts(event)) yield fromClientEvent(event);
            }
            callIfDue();
          }
        } catch (error) {
          if (stopped()) return;
          const mapped = toCogitaveError(error);
          if (!(mapped instanceof Unavailable)) throw mapped;
          failures += 1;
          const delay = Math.min(250 * 2 ** failures, MAX_RESUBSCRIBE_DELAY_MS);
          logger?.warn(
            { err: mapped, retryInMs: delay },
            'esdb subscription dropped; resubscribing',
          );
          await sleep(delay, undefined, { signal }).catch(() => undefined);
        } finally {
          current.destroy();
          // Not awaited: it waits for the connection, which may be what just failed.
          void current.unsubscribe().catch(() => undefined);
        }
      }
    } finally {
      subscribe.signal?.removeEventListener('abort', stop);
    }
  }

  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    close: async () => {
      controller.abort();
      await iterator.return(undefined);
    },
  };
};
