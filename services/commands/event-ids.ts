import { v5 } from 'uuid';
import type { EventToAppend } from '../event-store/types.js';
import { eventMetadata, type CommandMetadata } from './metadata.js';

/**
 * Event ids are derived from the command, never random: a retried command (same commandId)
 * produces the same ids, and the event store treats the same ids at the same revision as an
 * idempotent success. The namespace is fixed forever; changing it would break that for
 * commands already stored.
 */
export const COMMAND_EVENT_NAMESPACE = '0b6f4b8e-3c1d-4f7a-9e25-7d8a1c6b2f40';

/** The id of the event in `slot` (its index, or a name such as "allocate") of a command. */
export const commandEventId = (commandId: string, slot: number | string): string =>
  v5(`${commandId.toLowerCase()}/${String(slot)}`, COMMAND_EVENT_NAMESPACE);

/** The ids of a command's events: `commandEventId(commandId, index)`. */
export const commandEventIds = (commandId: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => commandEventId(commandId, index));

/** The command's decided events as the store takes them, with `ids` (default: derived). */
export const toEventsToAppend = (
  events: readonly { readonly type: string; readonly data: unknown }[],
  meta: CommandMetadata,
  ids: readonly string[] = commandEventIds(meta.commandId, events.length),
): EventToAppend[] => {
  const metadata = eventMetadata(meta);
  return events.map((event, index) => {
    const id = ids[index];
    if (id === undefined) throw new Error(`no event id for event ${index} of ${events.length}`);
    return { id, type: event.type, data: event.data, metadata };
  });
};
