import { setTimeout as sleep } from 'node:timers/promises';
import { DuplicateEventId, WrongExpectedVersion } from '../event-store/errors.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { readWholeStream } from '../event-store/whole-stream.js';
import { commandEventIds, toEventsToAppend } from './event-ids.js';
import type { CommandMetadata } from './metadata.js';

/**
 * The one command handler: load the stream's state, decide, append at the revision the
 * decision was made on; when another writer got there first, load again and decide again.
 * Requests, networks and the catalog run their commands through it, so idempotency and
 * conflicts behave the same everywhere.
 */

/** A stream's state as a command decides on it, and where in the stream that state stands. */
export interface Folded<S> {
  readonly state: S;
  /** Revision of the last event folded; null while the stream does not exist. */
  readonly revision: bigint | null;
  /** Position of that event; null while the stream does not exist. */
  readonly position: Position | null;
  /**
   * Read from the stream for this attempt (not from a cache). A refusal decided on a state
   * that may be behind is decided again on the stream before it is believed.
   */
  readonly fresh: boolean;
}

export interface DecidedEvent {
  readonly type: string;
  readonly data: unknown;
}

export interface Command<S, E extends DecidedEvent> {
  readonly streamId: string;
  readonly meta: CommandMetadata;
  /** The state to decide on; `fresh` asks for the stream itself, not a cache. */
  load(fresh: boolean): Promise<Folded<S>>;
  /** Pure: the events the command produces on `folded`, or a thrown refusal. */
  decide(folded: Folded<S>): readonly E[];
  /** A stored event of the stream as a decided event: a retried command's earlier events. */
  parse(recorded: RecordedEvent): E;
  /** Ids of the decided events (default: derived from `meta.commandId` and the index). */
  eventIds?(folded: Folded<S>, events: readonly E[]): readonly string[];
}

export interface CommandPolicy {
  /** Decisions made before a conflict is given up (1: never retried). */
  readonly maxAttempts: number;
  /** The error when attempts run out (default: the store's WrongExpectedVersion). */
  readonly conflict?: (error: WrongExpectedVersion, attempts: number) => Error;
}

export interface CommandOutcome<S, E> {
  /** The state the command was decided on. */
  readonly decidedOn: Folded<S>;
  /**
   * The command's events: appended now, or — a retried command — as an earlier attempt
   * stored them (`replayed`). Empty: there was nothing to do.
   */
  readonly events: readonly E[];
  readonly replayed: boolean;
  /** Revision and position of the command's last event; of `decidedOn` when there is none. */
  readonly revision: bigint | null;
  readonly position: Position | null;
}

const PAGE = 1000;

/**
 * A loader that folds the whole stream. When the stream already holds the command's first
 * event (a retried command), it folds only the history before it: the command is decided
 * again as it was and appended at that same revision, which the store answers as an
 * idempotent success with the original result.
 */
export const foldWholeStream =
  <S>(
    eventStore: EventStore,
    streamId: string,
    meta: CommandMetadata,
    fold: (recorded: readonly RecordedEvent[]) => S,
  ) =>
  async (): Promise<Folded<S>> => {
    const recorded = await readWholeStream(eventStore, streamId);
    const [ownFirst] = commandEventIds(meta.commandId, 1);
    const replayAt = recorded.findIndex((event) => event.id === ownFirst);
    const history = replayAt === -1 ? recorded : recorded.slice(0, replayAt);
    const last = history.at(-1);
    return {
      state: fold(history),
      revision: last?.revision ?? null,
      position: last?.position ?? null,
      fresh: true,
    };
  };

/** The stored events whose ids are `ids`, in order, when the stream holds all of them. */
const findStored = async (
  eventStore: EventStore,
  streamId: string,
  ids: readonly string[],
): Promise<RecordedEvent[] | undefined> => {
  const [first] = ids;
  if (first === undefined) return undefined;
  let fromRevision: bigint | undefined;
  for (;;) {
    const page = await eventStore.readStream(streamId, {
      direction: 'backwards',
      maxCount: PAGE,
      ...(fromRevision === undefined ? {} : { fromRevision }),
    });
    const found = page.find((event) => event.id === first);
    if (found) {
      const stored = await eventStore.readStream(streamId, {
        fromRevision: found.revision,
        maxCount: ids.length,
      });
      return stored.every((event, index) => event.id === ids[index]) && stored.length === ids.length
        ? stored
        : undefined;
    }
    const last = page.at(-1);
    if (page.length < PAGE || !last || last.revision === 0n) return undefined;
    fromRevision = last.revision - 1n;
  }
};

const decideOn = async <S, E extends DecidedEvent>(
  command: Command<S, E>,
  fresh: boolean,
): Promise<{ readonly folded: Folded<S>; readonly events: readonly E[] }> => {
  const folded = await command.load(fresh);
  try {
    return { folded, events: command.decide(folded) };
  } catch (refusal) {
    if (folded.fresh) throw refusal;
    // A cached state may be behind the stream: only the stream can confirm a refusal.
    const current = await command.load(true);
    return { folded: current, events: command.decide(current) };
  }
};

/**
 * Runs `command`: decides on its stream's state and appends the events at the revision the
 * decision was made on. A conflict (another writer appended first) loads the stream again
 * and decides again, up to `policy.maxAttempts` decisions; a retried command whose events
 * are already stored returns them instead of appending twice.
 */
export const runCommand = async <S, E extends DecidedEvent>(
  eventStore: EventStore,
  command: Command<S, E>,
  policy: CommandPolicy,
): Promise<CommandOutcome<S, E>> => {
  for (let attempt = 1; ; attempt += 1) {
    const { folded, events } = await decideOn(command, attempt > 1);
    if (events.length === 0) {
      return {
        decidedOn: folded,
        events,
        replayed: false,
        revision: folded.revision,
        position: folded.position,
      };
    }
    const ids =
      command.eventIds?.(folded, events) ?? commandEventIds(command.meta.commandId, events.length);
    const replay = async (): Promise<CommandOutcome<S, E> | undefined> => {
      const stored = await findStored(eventStore, command.streamId, ids);
      const last = stored?.at(-1);
      if (!stored || !last) return undefined;
      return {
        decidedOn: folded,
        events: stored.map((recorded) => command.parse(recorded)),
        replayed: true,
        revision: last.revision,
        position: last.position,
      };
    };
    try {
      const result = await eventStore.append(
        command.streamId,
        toEventsToAppend(events, command.meta, ids),
        { expectedRevision: folded.revision ?? 'no_stream' },
      );
      return {
        decidedOn: folded,
        events,
        replayed: false,
        revision: result.nextRevision,
        position: result.position,
      };
    } catch (error) {
      if (error instanceof DuplicateEventId) {
        // The ids are taken: by this command's earlier attempt, or a conflict to report.
        const replayed = await replay();
        if (replayed) return replayed;
        throw error;
      }
      if (!(error instanceof WrongExpectedVersion)) throw error;
      // The stream did not move, yet the store refused: the events are stored already, at
      // another revision (the command is being retried).
      if (error.actual !== null && error.actual === folded.revision) {
        const replayed = await replay();
        if (replayed) return replayed;
      }
      if (attempt >= policy.maxAttempts) throw policy.conflict?.(error, attempt) ?? error;
      // Someone else wrote first: a short, jittered pause spreads out the next round.
      await sleep(Math.random() * 5 * attempt);
    }
  }
};
