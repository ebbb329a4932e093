import type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventToAppend,
  StreamAppend,
} from '../event-store/types.js';

/**
 * The second write path, beside the command kernel (`handler.ts`): facts the product keeps
 * about its own operation rather than decisions on an aggregate — a request id taken from a
 * year's counter, a webhook delivery applied, a divergence between GitHub and the log, the
 * deployment's approval mode. They have no `decide`: what to append is already known, and the
 * caller picks the expected revision.
 *
 * A log is opened for a closed list of event types, so a capability can record only its own
 * bookkeeping facts through it, never an aggregate's event: an event of another type is
 * refused before anything is appended. Every other append goes through `runCommand`.
 */
export interface BookkeepingLog {
  /** The types this log may append. */
  readonly types: readonly string[];
  /** Appends to one stream, as `EventStore.append` does. */
  record(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions,
  ): Promise<AppendResult>;
  /**
   * Appends to several streams at once, all or nothing, where the store can
   * (`EventStore.appendAtomically`); undefined where it cannot.
   */
  readonly recordAtomically?: (appends: readonly StreamAppend[]) => Promise<AppendResult[]>;
}

/** Refused before any append: the event is not one of the log's bookkeeping types. */
export class NotBookkeeping extends Error {
  override readonly name = 'NotBookkeeping';
  constructor(
    readonly eventType: string,
    readonly types: readonly string[],
  ) {
    super(
      `"${eventType}" is not a bookkeeping event of this log (${types.join(', ')}); decided events go through the command kernel`,
    );
  }
}

/** Throws NotBookkeeping for the first of `events` whose type is not one of `types`. */
export const assertBookkeeping = (
  events: readonly EventToAppend[],
  types: readonly string[],
): void => {
  for (const event of events) {
    if (!types.includes(event.type)) throw new NotBookkeeping(event.type, types);
  }
};

export const createBookkeepingLog = (
  eventStore: EventStore,
  types: readonly string[],
): BookkeepingLog => {
  const check = (events: readonly EventToAppend[]): void => {
    assertBookkeeping(events, types);
  };
  const atomically = eventStore.appendAtomically?.bind(eventStore);
  return {
    types,
    record: async (streamId, events, options) => {
      check(events);
      return eventStore.append(streamId, events, options);
    },
    ...(atomically && {
      recordAtomically: async (appends: readonly StreamAppend[]) => {
        for (const part of appends) check(part.events);
        return atomically(appends);
      },
    }),
  };
};
