import { v5 } from 'uuid';
import type { EventMetadata, EventToAppend } from '../event-store/types.js';
import type { CommandMetadata } from './commands.js';

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

/** Metadata every event of the command carries; a command without a chain starts its own. */
export const eventMetadata = (meta: CommandMetadata): EventMetadata => ({
  actor: meta.actor,
  correlationId: meta.correlationId ?? meta.commandId,
  causationId: meta.causationId ?? meta.commandId,
  at: meta.at,
});

export const toEventsToAppend = (
  events: readonly { readonly type: string; readonly data: unknown }[],
  meta: CommandMetadata,
): EventToAppend[] =>
  events.map((event, index) => ({
    id: commandEventId(meta.commandId, index),
    type: event.type,
    data: event.data,
    metadata: eventMetadata(meta),
  }));
