import { setTimeout as sleep } from 'node:timers/promises';
import { NO_STREAM } from '@eventstore/db-client';
import { CogitaveError, Unavailable } from '../../runtime/errors.js';
import { DuplicateEventId, WrongExpectedVersion } from '../errors.js';
import { chainHash, sha256Hex } from '../hash-chain.js';
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  RecordedEvent,
} from '../types.js';
import { validateAppend, type ValidatedEvent } from '../validation.js';
import type { EsdbConnection } from './connection.js';
import {
  assertNoHashKeys,
  findReplay,
  toCogitaveError,
  toEventData,
  toPosition,
} from './mapping.js';
import { readRaw, readStream } from './reads.js';

/**
 * Attempts of an 'any' / 'stream_exists' append that keeps losing the race for the stream head
 * to concurrent writers (each loss is one writer winning, so progress is always made).
 */
const MAX_APPEND_ATTEMPTS = 100;
const MAX_APPEND_BACKOFF_MS = 100;
/** Newest events searched for a replayed batch when the caller gave no exact revision. */
const REPLAY_WINDOW = 100;

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

/**
 * A stream that reads as absent may have been soft-deleted: EventStoreDB would take the next
 * append as its continuation (revisions go on from the old ones), which a chain started
 * afresh cannot follow. Its metadata stream tells: a soft delete sets `$tb` there
 * (https://developers.eventstore.com/server/v23.10/streams.html#soft-delete-and-truncatebefore).
 */
const refuseDeleted = async (connection: EsdbConnection, streamId: string): Promise<void> => {
  const [metadata] = await readRaw(connection, `$$${streamId}`, {
    direction: 'backwards',
    maxCount: 1,
  });
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
  connection: EsdbConnection,
  streamId: string,
  events: readonly ValidatedEvent[],
  head: RecordedEvent | null,
): Promise<AppendResult> => {
  if (!head) await refuseDeleted(connection, streamId);
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
  const appended = await connection.client.appendToStream(streamId, data, {
    expectedRevision: head ? head.revision : NO_STREAM,
  });
  // Read the last event back: its $all position is exact (the append reply's is not always),
  // and the server's own id-based idempotency may have accepted a batch whose ids were
  // stored by a racing writer for different content — the hash tells them apart.
  const [stored] = await readStream(connection, streamId, {
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
  connection: EsdbConnection,
  streamId: string,
  events: readonly EventToAppend[],
  expected: 'no_stream' | bigint,
  actual: bigint | null,
): Promise<AppendResult> => {
  const fromRevision = expected === 'no_stream' ? 0n : expected + 1n;
  const candidates =
    actual === null
      ? []
      : await readStream(connection, streamId, { fromRevision, maxCount: events.length });
  const replay = findReplay(candidates, streamId, events);
  if (replay) return resultOf(replay);
  throw new WrongExpectedVersion(streamId, expected, actual);
};

/** One append at the head as read now, retried while concurrent writers win the race. */
const appendAtHead = async (
  connection: EsdbConnection,
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
    const tail = await readStream(connection, streamId, {
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
      return replayOrConflict(connection, streamId, events, expected, actual);
    }
    try {
      onWrite();
      return await write(connection, streamId, events, head);
    } catch (error) {
      const mapped = toCogitaveError(error, { streamId, expected });
      if (!(mapped instanceof WrongExpectedVersion) || attempt >= MAX_APPEND_ATTEMPTS) {
        throw mapped;
      }
      // Another writer appended between our read and our write: read the new head again (an
      // exact expectation then reports the conflict, or finds its own replay). The random
      // pause spreads writers that keep colliding on one stream.
      connection.logger?.debug(
        { streamId, attempt },
        'esdb append raced a concurrent writer; retrying',
      );
      if (flexible) await sleep(Math.random() * Math.min(2 ** attempt, MAX_APPEND_BACKOFF_MS));
    }
  }
};

/** The port's append: validated, retried while unavailable, found again when replayed. */
export const append = async (
  connection: EsdbConnection,
  ...[streamId, events, appendOptions]: Parameters<EventStore['append']>
): Promise<AppendResult> => {
  const normalised = validateAppend(streamId, events, appendOptions);
  normalised.forEach(assertNoHashKeys);
  const expected = appendOptions.expectedRevision;
  // Once a write was sent, a failure leaves its outcome unknown: every retry (same ids)
  // starts by looking for it.
  const progress = { sent: false };
  try {
    return await connection.retrying('append', { streamId }, () =>
      appendAtHead(connection, streamId, normalised, expected, () => {
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
