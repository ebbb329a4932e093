/**
 * The event store port on EventStoreDB (gRPC client 6.x, server 22.6+; 23.10+ for onCaughtUp).
 * The server knows nothing of the hash chain, so the adapter reads the stream head, computes
 * the links and appends at that exact revision: a concurrent writer makes the append fail
 * rather than fork the chain. While the node is unavailable (a restart, a dropped connection,
 * a timeout) appends and reads are retried for a while; a retried append carries the same
 * event ids and first looks for them, so an append whose answer was lost is found, not
 * repeated.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  type AllStreamSubscription,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { CogitaveError, Unavailable } from '../../runtime/errors.js';
import { redactUrl, type Logger } from '../../runtime/logger.js';
import { DuplicateEventId, WrongExpectedVersion } from '../errors.js';
import { chainHash, sha256Hex } from '../hash-chain.js';
import { comparePositions } from '../position.js';
import { createSubscriptionRegistry } from '../subscription-registry.js';
import type {
  AppendResult,
  Direction,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../types.js';
import {
  validateAppend,
  validateReadAll,
  validateReadStream,
  type ValidatedEvent,
} from '../validation.js';
import {
  collectRead,
  retryTransient,
  type CancellableRead,
  type RetryPolicy,
} from './resilience.js';
import {
  assertNoHashKeys,
  findReplay,
  fromClientEvent,
  isStreamNotFound,
  toClientPosition,
  toCogitaveError,
  toEventData,
  toFilterPlan,
  toPosition,
} from './mapping.js';

export interface EsdbEventStoreOptions {
  /** esdb://host:2113?tls=false (kurrentdb:// is accepted and read as esdb://). */
  readonly connectionString: string;
  readonly logger?: Logger;
  /**
   * How long an append or a read keeps retrying while EventStoreDB is unavailable (a node
   * restart, a leader election, a dropped connection, a server timeout). Default 15 s.
   */
  readonly retryForMs?: number;
  /** A read that receives nothing for this long is cancelled and retried. Default 10 s. */
  readonly readIdleTimeoutMs?: number;
}

/** Same default as the Postgres adapter, so callers see one behaviour. */
const DEFAULT_READ_COUNT = 1000;
/** Largest request of readAll, which skips system and filtered-out events client-side. */
const MAX_PAGE_SIZE = 4096;
/**
 * Attempts of an 'any' / 'stream_exists' append that keeps losing the race for the stream head
 * to concurrent writers (each loss is one writer winning, so progress is always made).
 */
const MAX_APPEND_ATTEMPTS = 100;
const MAX_APPEND_BACKOFF_MS = 100;
/** Newest events searched for a replayed batch when the caller gave no exact revision. */
const REPLAY_WINDOW = 100;
const MAX_RESUBSCRIBE_DELAY_MS = 10_000;
const DEFAULT_RETRY_FOR_MS = 15_000;
/** The client's own default deadline of a call; reads get none from it. */
const DEFAULT_READ_IDLE_TIMEOUT_MS = 10_000;

const connect = (connectionString: string): EventStoreDBClient => {
  try {
    // Client 6.x only parses the esdb schemes; kurrentdb:// is the same protocol renamed.
    return EventStoreDBClient.connectionString(
      connectionString.replace(/^kurrentdb(\+discover)?:/, 'esdb$1:'),
    );
  } catch (error) {
    // The parser's message quotes the string, which may hold a password: report it redacted.
    throw new CogitaveError(
      'CONFIG_INVALID',
      `Invalid EventStoreDB connection string ${redactUrl(connectionString)} (expected esdb://host:2113?tls=false)`,
      {},
      { cause: error },
    );
  }
};

const matches = (expected: ExpectedRevision, actual: bigint | null): boolean =>
  expected === 'any' ||
  (expected === 'no_stream'
    ? actual === null
    : expected === 'stream_exists'
      ? actual !== null
      : actual === expected);

const resultOf = (event: RecordedEvent): AppendResult => ({
  nextRevision: event.revision,
  position: event.position,
});

/** Exclusive bounds: strictly after (forwards) or strictly before (backwards). */
const isBeyond = (position: Position, bound: Position | undefined, direction: Direction): boolean =>
  bound === undefined ||
  comparePositions(position, bound) * (direction === 'forwards' ? 1 : -1) > 0;

export const createEsdbEventStore = (options: EsdbEventStoreOptions): EventStore => {
  const client = connect(options.connectionString);
  const { logger } = options;
  const subscriptions = createSubscriptionRegistry();

  const policy: RetryPolicy = {
    forMs: options.retryForMs ?? DEFAULT_RETRY_FOR_MS,
    firstDelayMs: 100,
    maxDelayMs: 2_000,
  };
  const idleMs = options.readIdleTimeoutMs ?? DEFAULT_READ_IDLE_TIMEOUT_MS;
  // Aborted by close(): no retry outlives the store.
  const closing = new AbortController();
  const retrying = <T>(what: string, context: Record<string, unknown>, attempt: () => Promise<T>) =>
    retryTransient(policy, attempt, {
      signal: closing.signal,
      onRetry: (error, n, delayMs) => {
        logger?.warn(
          { ...context, err: error, attempt: n, retryInMs: Math.round(delayMs) },
          `esdb ${what} failed; retrying`,
        );
      },
    });
  const collect = <T>(read: CancellableRead<T>): Promise<T[]> => collectRead(read, idleMs);

  /** One stream's events as the client returns them; empty when the stream does not exist. */
  const readRaw = (streamId: string, read: ReadStreamOptions = {}): Promise<ResolvedEvent[]> => {
    const direction = read.direction ?? 'forwards';
    return retrying('read', { streamId }, async () => {
      try {
        return await collect(
          client.readStream(streamId, {
            direction,
            fromRevision: read.fromRevision ?? (direction === 'forwards' ? START : END),
            maxCount: read.maxCount ?? DEFAULT_READ_COUNT,
          }),
        );
      } catch (error) {
        if (isStreamNotFound(error)) return [];
        throw toCogitaveError(error, { streamId });
      }
    });
  };

  const readStream = async (
    streamId: string,
    read: ReadStreamOptions = {},
  ): Promise<RecordedEvent[]> =>
    (await readRaw(streamId, read)).flatMap((item) =>
      item.event ? [fromClientEvent(item.event)] : [],
    );

  /**
   * A stream that reads as absent may have been soft-deleted: EventStoreDB would take the next
   * append as its continuation (revisions go on from the old ones), which a chain started
   * afresh cannot follow. Its metadata stream tells: a soft delete sets `$tb` there
   * (https://developers.eventstore.com/server/v23.10/streams.html#soft-delete-and-truncatebefore).
   */
  const refuseDeleted = async (streamId: string): Promise<void> => {
    const [metadata] = await readRaw(`$$${streamId}`, { direction: 'backwards', maxCount: 1 });
    const data = metadata?.event?.data;
    if (data && typeof data === 'object' && '$tb' in data) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `Stream "${streamId}" was deleted in EventStoreDB (its metadata truncates it); Cogitave does not reopen a deleted stream, whose hash chain would restart from nothing`,
        { streamId },
      );
    }
  };

  /** Appends after `head` (null: as a new stream) with the chain links computed here. */
  const write = async (
    streamId: string,
    events: readonly ValidatedEvent[],
    head: RecordedEvent | null,
  ): Promise<AppendResult> => {
    if (!head) await refuseDeleted(streamId);
    let prevHash = head?.hash ?? null;
    let revision = head ? head.revision + 1n : 0n;
    const data = events.map((event) => {
      const { content } = event;
      const hash = chainHash(prevHash, revision, sha256Hex(content));
      const eventData = toEventData(event, { prevHash, hash }, content);
      prevHash = hash;
      revision += 1n;
      return eventData;
    });
    const appended = await client.appendToStream(streamId, data, {
      expectedRevision: head ? head.revision : NO_STREAM,
    });
    // Read the last event back: its $all position is exact (the append reply's is not always),
    // and the server's own id-based idempotency may have accepted a batch whose ids were
    // stored by a racing writer for different content — the hash tells them apart.
    const [stored] = await readStream(streamId, {
      fromRevision: appended.nextExpectedRevision,
      maxCount: 1,
    });
    const last = events.at(-1);
    if (stored && last && (stored.id !== last.id || stored.hash !== prevHash)) {
      throw new DuplicateEventId(last.id, streamId);
    }
    if (stored) return resultOf(stored);
    if (!appended.position) {
      throw new CogitaveError('INTERNAL', `EventStoreDB returned no position for "${streamId}"`);
    }
    return { nextRevision: appended.nextExpectedRevision, position: toPosition(appended.position) };
  };

  /** The stream is not at the expected revision: a replay of this very append, or a conflict. */
  const replayOrConflict = async (
    streamId: string,
    events: readonly EventToAppend[],
    expected: 'no_stream' | bigint,
    actual: bigint | null,
  ): Promise<AppendResult> => {
    const fromRevision = expected === 'no_stream' ? 0n : expected + 1n;
    const candidates =
      actual === null ? [] : await readStream(streamId, { fromRevision, maxCount: events.length });
    const replay = findReplay(candidates, streamId, events);
    if (replay) return resultOf(replay);
    throw new WrongExpectedVersion(streamId, expected, actual);
  };

  /** One append at the head as read now, retried while concurrent writers win the race. */
  const appendAtHead = async (
    streamId: string,
    events: readonly ValidatedEvent[],
    expected: ExpectedRevision,
    onWrite: () => void,
  ): Promise<AppendResult> => {
    const flexible = expected === 'any' || expected === 'stream_exists';
    for (let attempt = 1; ; attempt += 1) {
      // Without a revision, a replay (of an append whose acknowledgement was lost) can only be
      // found by id in the newest events; later attempts follow a refused write, no replay.
      const searchReplay = flexible && attempt === 1;
      const tail = await readStream(streamId, {
        direction: 'backwards',
        maxCount: searchReplay ? events.length + REPLAY_WINDOW : 1,
      });
      const head = tail[0] ?? null;
      const actual = head?.revision ?? null;
      if (searchReplay) {
        const replay = findReplay(tail, streamId, events);
        if (replay) return resultOf(replay);
      }
      if (!matches(expected, actual)) {
        if (flexible) throw new WrongExpectedVersion(streamId, expected, actual);
        return replayOrConflict(streamId, events, expected, actual);
      }
      try {
        onWrite();
        return await write(streamId, events, head);
      } catch (error) {
        const mapped = toCogitaveError(error, { streamId, expected });
        if (!(mapped instanceof WrongExpectedVersion) || attempt >= MAX_APPEND_ATTEMPTS) {
          throw mapped;
        }
        // Another writer appended between our read and our write: read the new head again (an
        // exact expectation then reports the conflict, or finds its own replay). The random
        // pause spreads writers that keep colliding on one stream.
        logger?.debug({ streamId, attempt }, 'esdb append raced a concurrent writer; retrying');
        if (flexible) await sleep(Math.random() * Math.min(2 ** attempt, MAX_APPEND_BACKOFF_MS));
      }
    }
  };

  const append: EventStore['append'] = async (streamId, events, appendOptions) => {
    const normalised = validateAppend(streamId, events, appendOptions);
    normalised.forEach(assertNoHashKeys);
    const expected = appendOptions.expectedRevision;
    // Once a write was sent, a failure leaves its outcome unknown: every retry (same ids)
    // starts by looking for it.
    const progress = { sent: false };
    try {
      return await retrying('append', { streamId }, () =>
        appendAtHead(streamId, normalised, expected, () => {
          progress.sent = true;
        }),
      );
    } catch (error) {
      if (!(error instanceof Unavailable) || !progress.sent) throw error;
      throw new Unavailable(
        `${error.message}; the append may have been written: retry it with the same event ids, which is safe (it is then found, not repeated)`,
        { streamId },
        { cause: error },
      );
    }
  };

  const readAll: EventStore['readAll'] = async (read: ReadAllOptions = {}) => {
    validateReadAll(read);
    const direction = read.direction ?? 'forwards';
    const limit = read.maxCount ?? DEFAULT_READ_COUNT;
    // Client 6.x sends no filter with readAll, so the filter (and system events) is applied
    // here, page by page, until enough events match or the log ends.
    const { accepts } = toFilterPlan(read.filter);
    const found: RecordedEvent[] = [];
    let bound = read.fromPosition;
    // Start near what is asked for, then grow while filtered-out events fill the pages.
    let pageSize = Math.min(limit + 16, MAX_PAGE_SIZE);
    let cursor: ReadPosition = bound
      ? toClientPosition(bound)
      : direction === 'forwards'
        ? START
        : END;
    for (;;) {
      const from = cursor;
      const page = await retrying('read of $all', {}, () =>
        collect(client.readAll({ direction, fromPosition: from, maxCount: pageSize })),
      );
      for (const { event } of page) {
        // The client's fromPosition is inclusive: the bound itself is skipped here.
        if (!event || !isBeyond(toPosition(event.position), bound, direction) || !accepts(event))
          continue;
        found.push(fromClientEvent(event));
        if (found.length >= limit) return found;
      }
      const last = page.at(-1)?.event;
      if (page.length < pageSize || !last) return found;
      bound = toPosition(last.position);
      cursor = last.position;
      pageSize = Math.min(pageSize * 2, MAX_PAGE_SIZE);
    }
  };

  const subscribeToAll: EventStore['subscribeToAll'] = (subscribe: SubscribeOptions = {}) => {
    validateReadAll({ fromPosition: subscribe.fromPosition, filter: subscribe.filter });
    return subscriptions.track(follow(subscribe));
  };

  /**
   * A catch-up subscription on the client's subscribeToAll, re-subscribed from the last seen
   * position when the connection drops (as the Postgres adapter retries transient errors).
   */
  const follow = (subscribe: SubscribeOptions): Subscription => {
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

  return {
    kind: 'esdb',
    append,
    readStream: async (streamId, read = {}) => {
      validateReadStream(streamId, read);
      return readStream(streamId, read);
    },
    readAll,
    // EventStoreDB's $all shows every committed event at once: the newest one read is it.
    lastPosition: async () =>
      (await readAll({ direction: 'backwards', maxCount: 1 }))[0]?.position ?? null,
    subscribeToAll,
    close: async () => {
      closing.abort();
      await subscriptions.closeAll();
      await client.dispose();
    },
  };
};
