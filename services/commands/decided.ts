import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  StreamAppend,
} from '../event-store/types.js';
import { assertBookkeeping, type BookkeepingLog } from './bookkeeping.js';
import { commandEventIds, toEventsToAppend } from './event-ids.js';
import type { DecidedEvent } from './handler.js';
import type { CommandMetadata } from './metadata.js';

/**
 * The kernel's entry for events already decided, where `runCommand`'s read → decide → append
 * would read for nothing: a new stream whose first events were decided from data the caller
 * holds (a request created from its id allocation, by its maker or by whoever completes a
 * crashed maker's batch). The events keep what the kernel gives every decided event — the
 * command's metadata and deterministic ids (`commandEventId(commandId, slot)`) — so appending
 * them again (a retry, a helper) is the store's idempotent success, never a twin.
 */
export interface DecidedAppend {
  readonly streamId: string;
  readonly events: readonly DecidedEvent[];
  /** The deciding command's metadata: every event carries it, and the ids derive from it. */
  readonly meta: CommandMetadata;
  /** Default: `commandEventIds(meta.commandId, events.length)`, as `runCommand` gives them. */
  readonly ids?: readonly string[];
  readonly expectedRevision: ExpectedRevision;
}

/** The ids `decided`'s events are stored under. */
export const decidedEventIds = (decided: DecidedAppend): readonly string[] =>
  decided.ids ?? commandEventIds(decided.meta.commandId, decided.events.length);

const toStreamAppend = (decided: DecidedAppend): StreamAppend => ({
  streamId: decided.streamId,
  events: toEventsToAppend(decided.events, decided.meta, decidedEventIds(decided)),
  options: { expectedRevision: decided.expectedRevision },
});

/** Appends already-decided events to their stream at `expectedRevision`. */
export const appendDecided = (
  eventStore: EventStore,
  decided: DecidedAppend,
): Promise<AppendResult> => {
  const { streamId, events, options } = toStreamAppend(decided);
  return eventStore.append(streamId, events, options);
};

/** One stream's part of `appendDecidedWithBookkeeping`: bookkeeping facts, or decided events. */
export type AtomicPart =
  { readonly bookkeeping: StreamAppend } | { readonly decided: DecidedAppend };

export type AppendDecidedWithBookkeeping = (
  parts: readonly AtomicPart[],
) => Promise<AppendResult[]>;

/**
 * Bookkeeping facts and the decisions they enable in one transaction, all or nothing, where
 * the store can (`EventStore.appendAtomically`; undefined where it cannot). Request intake
 * takes ids this way: a batch's counter events, its bindings and its new requests are stored
 * together, so an allocation is complete the moment it exists, in one append and no read
 * while the counter head holds. The bookkeeping parts are held to `log`'s types (NotBookkeeping
 * before anything is appended); the decided parts get the command's metadata and ids. One
 * result per part, in order; the store's refusals (WrongExpectedVersion, DuplicateEventId)
 * come through unchanged for the caller to decide on.
 */
export const appendDecidedWithBookkeeping = (
  eventStore: EventStore,
  log: BookkeepingLog,
): AppendDecidedWithBookkeeping | undefined => {
  const atomically = eventStore.appendAtomically?.bind(eventStore);
  if (!atomically) return undefined;
  return async (parts) => {
    const appends = parts.map((part): StreamAppend => {
      if ('decided' in part) return toStreamAppend(part.decided);
      assertBookkeeping(part.bookkeeping.events, log.types);
      return part.bookkeeping;
    });
    return atomically(appends);
  };
};

/**
 * Decided events for several streams in one transaction, all or nothing, where the store can
 * (undefined where it cannot): a batch of commands each decided on state the caller already
 * holds, such as an ingest's publishes decided on the heads it read. Each part keeps the
 * kernel's metadata and ids and its own expected revision; a refusal of any part stores
 * nothing and comes through unchanged, for the caller to run those commands one by one.
 */
export const appendDecidedAtomically = (
  eventStore: EventStore,
): ((decided: readonly DecidedAppend[]) => Promise<AppendResult[]>) | undefined => {
  const atomically = eventStore.appendAtomically?.bind(eventStore);
  if (!atomically) return undefined;
  return (decided) => atomically(decided.map(toStreamAppend));
};
