import { comparePositions } from '../event-store/position.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { readWholeStream } from '../event-store/whole-stream.js';
import { InvalidArgument } from '../runtime/errors.js';
import { REQUEST_EVENT_TYPES, requestStreamId } from './events.js';
import { RequestNotFound } from './errors.js';
import { foldRequestStream, type RequestRecord } from './fold.js';

/**
 * Time travel and history for auditors and `get_request { as_of }`: the request as it stood
 * at a position of the log or at a moment, folded from its own stream (the one read that does
 * not come from a projection, because a projection only knows "now").
 */
export interface AsOf {
  /** Include events at or before this log position. */
  readonly position?: Position | undefined;
  /** Include events decided at or before this ISO-8601 instant (metadata.at). */
  readonly at?: string | undefined;
}

export interface RequestAsOf {
  /** Undefined when the cut is before the request's first event. */
  readonly state: RequestRecord | undefined;
  /** The last event folded: where in the log and the stream this view stands. */
  readonly position: Position | null;
  readonly revision: bigint | null;
}

export interface HistoryEntry {
  readonly revision: bigint;
  readonly position: Position;
  readonly type: string;
  readonly actor: string;
  readonly at: string;
  readonly prevHash: string | null;
  readonly hash: string;
  readonly data: unknown;
}

const isRequestEvent = (event: RecordedEvent): boolean =>
  (REQUEST_EVENT_TYPES as readonly string[]).includes(event.type);

const instant = (value: string, name: string): number => {
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new InvalidArgument(`${name} must be an ISO-8601 timestamp (got "${value}")`);
  return ms;
};

export const loadRequestAsOf = async (
  eventStore: EventStore,
  requestId: string,
  asOf: AsOf = {},
): Promise<RequestAsOf> => {
  const until = asOf.at === undefined ? undefined : instant(asOf.at, 'as_of');
  const events = await readWholeStream(eventStore, requestStreamId(requestId));
  if (events.length === 0) throw new RequestNotFound(requestId);
  // A stream's events are in log order, so the view is a prefix of the stream.
  const included: RecordedEvent[] = [];
  for (const event of events) {
    if (asOf.position !== undefined && comparePositions(event.position, asOf.position) > 0) break;
    if (until !== undefined && Date.parse(event.metadata.at) > until) break;
    included.push(event);
  }
  const state = foldRequestStream(included.filter(isRequestEvent));
  const last = included.at(-1);
  return {
    state,
    position: last?.position ?? null,
    revision: last?.revision ?? null,
  };
};

export const loadRequestHistory = async (
  eventStore: EventStore,
  requestId: string,
): Promise<HistoryEntry[]> => {
  const events = await readWholeStream(eventStore, requestStreamId(requestId));
  if (events.length === 0) throw new RequestNotFound(requestId);
  return events.map((event) => ({
    revision: event.revision,
    position: event.position,
    type: event.type,
    actor: event.metadata.actor,
    at: event.metadata.at,
    prevHash: event.prevHash,
    hash: event.hash,
    data: event.data,
  }));
};
