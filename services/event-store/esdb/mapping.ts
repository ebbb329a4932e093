/**
 * Pure translations between the event store port and @eventstore/db-client: no I/O here, so
 * every rule the adapter relies on is unit-testable without a server.
 */
import {
  ANY,
  ErrorType,
  NO_STREAM,
  STREAM_EXISTS,
  eventTypeFilter,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  streamNameFilter,
  convertToCommandError,
  type AppendExpectedRevision,
  type CurrentRevision,
  type EventData,
  type Filter,
  type JSONType,
  type Position as ClientPosition,
} from '@eventstore/db-client';
import { CogitaveError, InvalidArgument, Unavailable } from '../../runtime/errors.js';
import { DuplicateEventId, WrongExpectedVersion } from '../errors.js';
import { contentHash, eventContent } from '../hash-chain.js';
import { decodePosition, encodePosition } from '../position.js';
import type {
  EventFilter,
  EventMetadata,
  EventToAppend,
  ExpectedRevision,
  Position,
  RecordedEvent,
} from '../types.js';

// ---------------------------------------------------------------------------------------------
// Revisions and positions

export const toClientExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
};

export const fromClientExpectedRevision = (expected: AppendExpectedRevision): ExpectedRevision =>
  expected === ANY
    ? 'any'
    : expected === NO_STREAM
      ? 'no_stream'
      : expected === STREAM_EXISTS
        ? 'stream_exists'
        : expected;

/** The client's "current revision" of a stream; null when the stream does not exist. */
export const fromClientCurrentRevision = (current: CurrentRevision): bigint | null =>
  current === NO_STREAM ? null : current;

/** Servers before 22.6 report this (or nothing) as the $all position of events read from a stream. */
const NO_POSITION = (1n << 64n) - 1n;

export const toPosition = (position: ClientPosition): Position =>
  encodePosition(position.commit, position.prepare);

export const toClientPosition = (position: Position): ClientPosition => {
  const { major, minor } = decodePosition(position);
  return { commit: major, prepare: minor };
};

// ---------------------------------------------------------------------------------------------
// Events

/** Keys the adapter adds to the ESDB metadata JSON; a caller's metadata must not use them. */
const HASH_METADATA_KEYS = ['prevHash', 'hash'] as const;

export interface ChainLink {
  readonly prevHash: string | null;
  readonly hash: string;
}

/**
 * The subset of the client's RecordedEvent the mapping reads (the client's JSON and binary
 * recorded events both fit it).
 */
export interface ClientRecordedEventLike {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly isJson: boolean;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position?: ClientPosition | undefined;
}

/** System streams and events ($-prefixed: $stats, $>, $metadata, projections) are not ours. */
export const isSystemEvent = (event: {
  readonly streamId: string;
  readonly type: string;
}): boolean => event.streamId.startsWith('$') || event.type.startsWith('$');

/** The adapter stores the chain in the metadata JSON: a caller's metadata must not clash. */
export const assertNoHashKeys = (event: EventToAppend): void => {
  for (const key of HASH_METADATA_KEYS) {
    if (Object.hasOwn(event.metadata, key)) {
      throw new InvalidArgument(
        `event ${event.id}: metadata key "${key}" is reserved by the EventStoreDB adapter (it stores the hash chain there)`,
      );
    }
  }
};

export const toEventData = (event: EventToAppend, link: ChainLink): EventData => {
  assertNoHashKeys(event);
  return jsonEvent({
    id: event.id,
    type: event.type,
    // validateAppend made data plain JSON; the client JSON.stringify-s any JSON value, even
    // though its type only names objects, arrays and strings.
    data: event.data as JSONType,
    metadata: { ...event.metadata, prevHash: link.prevHash, hash: link.hash },
  });
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const notOurs = (event: ClientRecordedEventLike, why: string): CogitaveError =>
  new CogitaveError(
    'INTERNAL',
    `Event ${event.id} (stream "${event.streamId}", revision ${event.revision}) ${why}`,
    { streamId: event.streamId, eventId: event.id },
  );

export const fromClientEvent = (event: ClientRecordedEventLike): RecordedEvent => {
  if (!event.isJson) throw notOurs(event, 'is not a JSON event: it was not written by Cogitave');
  if (!isRecord(event.metadata))
    throw notOurs(event, 'has no metadata: it was not written by Cogitave');
  const { prevHash, hash, ...metadata } = event.metadata;
  if (typeof hash !== 'string' || (prevHash !== null && typeof prevHash !== 'string')) {
    throw notOurs(event, 'carries no hash chain in its metadata: it was not written by Cogitave');
  }
  if (!event.position || event.position.commit === NO_POSITION) {
    throw notOurs(event, 'has no $all position: the adapter needs EventStoreDB 22.6 or later');
  }
  // What the caller gave, checked by validateAppend when it was written.
  const eventMetadata = metadata as EventMetadata;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: toPosition(event.position),
    type: event.type,
    data: event.data,
    metadata: eventMetadata,
    content: eventContent(event.streamId, {
      id: event.id,
      type: event.type,
      data: event.data,
      metadata: eventMetadata,
    }),
    prevHash,
    hash,
  };
};

/**
 * Decides whether an append is a replay of events already stored. `candidates` are stored
 * events of the stream where a replay could be (any order). Returns the last event of the
 * replayed batch, or null when none of the ids is stored there. An id stored for different
 * content, or only part of the batch stored, is an id reused for another event.
 */
export const findReplay = (
  candidates: readonly RecordedEvent[],
  streamId: string,
  events: readonly EventToAppend[],
): RecordedEvent | null => {
  const byId = new Map(candidates.map((event) => [event.id, event]));
  const found = events.map((event) => byId.get(event.id));
  const reused = events.find((_, index) => found[index] !== undefined);
  if (!reused) return null;
  let previous: RecordedEvent | undefined;
  for (const [index, event] of events.entries()) {
    const stored = found[index];
    const consistent =
      stored !== undefined &&
      contentHash(streamId, stored) === contentHash(streamId, event) &&
      (previous === undefined || stored.revision === previous.revision + 1n);
    if (!consistent) throw new DuplicateEventId((stored ? event : reused).id, streamId);
    previous = stored;
  }
  return previous ?? null;
};

// ---------------------------------------------------------------------------------------------
// Filters

export interface FilterPlan {
  /** Narrows what the server sends (subscriptions only: the client's readAll takes no filter). */
  readonly server: Filter;
  /** The exact rule, applied to every event the server sends. */
  readonly accepts: (event: { readonly streamId: string; readonly type: string }) => boolean;
}

/**
 * An empty or absent list does not constrain (like an absent filter). The server matches
 * prefixes only, so event types go to it as prefixes (a superset) and are matched exactly
 * here. The server takes one filter: when both lists are given it filters on stream prefixes
 * and the event types are applied client-side only.
 */
export const toFilterPlan = (filter: EventFilter = {}): FilterPlan => {
  const prefixes = filter.streamPrefixes?.length ? [...filter.streamPrefixes] : undefined;
  const types = filter.eventTypes?.length ? new Set(filter.eventTypes) : undefined;
  const server = prefixes
    ? streamNameFilter({ prefixes })
    : types
      ? eventTypeFilter({ prefixes: [...types] })
      : excludeSystemEvents();
  const partition = filter.partition;
  return {
    server,
    accepts: (event) =>
      !isSystemEvent(event) &&
      (!prefixes || prefixes.some((prefix) => event.streamId.startsWith(prefix))) &&
      (!types || types.has(event.type)) &&
      (!partition || streamHash(event.streamId) % partition.count === partition.index),
  };
};

/** FNV-1a (32 bits) of a stream id: the partition hash here (EventStoreDB has none to offer). */
export const streamHash = (streamId: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < streamId.length; i += 1) {
    hash ^= streamId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

// ---------------------------------------------------------------------------------------------
// Errors

/** gRPC status codes that mean "the server could not be reached in time". */
const GRPC_UNAVAILABLE = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);

/** The client reports some failures as raw gRPC errors; give them the client's own classes. */
const normalise = (error: unknown): unknown => {
  if (!(error instanceof Error) || isCommandError(error)) return error;
  try {
    return convertToCommandError(error);
  } catch {
    // convertToCommandError assumes a complete gRPC error; keep anything else as it is.
    return error;
  }
};

export const isStreamNotFound = (error: unknown): boolean => {
  const converted = normalise(error);
  return (
    converted instanceof Error &&
    isCommandError(converted) &&
    converted.type === ErrorType.STREAM_NOT_FOUND
  );
};

export interface ErrorContext {
  readonly streamId?: string;
  /** The caller's expectation, reported instead of the one the adapter sent to the server. */
  readonly expected?: ExpectedRevision;
}

export const toCogitaveError = (error: unknown, context: ErrorContext = {}): Error => {
  if (error instanceof CogitaveError) return error;
  const converted = normalise(error);
  const cause = { cause: error };
  if (converted instanceof Error && isCommandError(converted)) {
    const details = { streamId: context.streamId, reason: converted.message };
    switch (converted.type) {
      case ErrorType.WRONG_EXPECTED_VERSION:
        return new WrongExpectedVersion(
          converted.streamName || context.streamId || '',
          context.expected ?? fromClientExpectedRevision(converted.expectedVersion),
          fromClientCurrentRevision(converted.actualVersion),
        );
      case ErrorType.UNAVAILABLE:
      case ErrorType.DEADLINE_EXCEEDED:
      case ErrorType.TIMEOUT:
      case ErrorType.NOT_LEADER:
      case ErrorType.CANCELLED:
        return new Unavailable(`EventStoreDB is unavailable: ${converted.message}`, details, cause);
      case ErrorType.ACCESS_DENIED:
        return new CogitaveError(
          'CONFIG_INVALID',
          'EventStoreDB denied access: check the credentials in the connection string',
          details,
          cause,
        );
      case ErrorType.STREAM_DELETED:
        // A hard delete (tombstone) is for good: nothing will read or append to it again
        // (https://developers.eventstore.com/server/v23.10/streams.html#hard-delete).
        return new CogitaveError(
          'FAILED_PRECONDITION',
          `Stream "${context.streamId ?? ''}" was deleted in EventStoreDB (tombstoned): it can no longer be read or appended to`,
          details,
          cause,
        );
      case ErrorType.MAXIMUM_APPEND_SIZE_EXCEEDED:
        return new InvalidArgument(
          `The append is larger than EventStoreDB accepts: ${converted.message}`,
          details,
        );
      case ErrorType.INVALID_ARGUMENT:
        return new InvalidArgument(
          `EventStoreDB rejected the request: ${converted.message}`,
          details,
        );
      default:
        return new CogitaveError(
          'INTERNAL',
          `EventStoreDB failed (${converted.type}): ${converted.message}`,
          details,
          cause,
        );
    }
  }
  const code: unknown =
    converted instanceof Error && 'code' in converted ? converted.code : undefined;
  const message = converted instanceof Error ? converted.message : String(converted);
  const unreachable =
    (typeof code === 'number' && GRPC_UNAVAILABLE.has(code)) ||
    (typeof code === 'string' && NETWORK_CODES.has(code)) ||
    message.startsWith('Failed to discover');
  if (unreachable) {
    return new Unavailable(
      `EventStoreDB is unavailable: ${message}`,
      { streamId: context.streamId },
      cause,
    );
  }
  return new CogitaveError(
    'INTERNAL',
    `EventStoreDB failed: ${message}`,
    { streamId: context.streamId },
    cause,
  );
};
