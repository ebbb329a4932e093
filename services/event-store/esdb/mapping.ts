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
  binaryEvent,
  isCommandError,
  streamNameFilter,
  convertToCommandError,
  type AppendExpectedRevision,
  type CurrentRevision,
  type EventData,
  type Filter,
  type Position as ClientPosition,
} from '@eventstore/db-client';
import { CogitaveError, InvalidArgument, Unavailable } from '../../runtime/errors.js';
import { DuplicateEventId, WrongExpectedVersion } from '../errors.js';
import { contentHash, eventContent, sha256Hex } from '../hash-chain.js';
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

/**
 * How an event is stored in EventStoreDB: its data are the UTF-8 bytes of its canonical content
 * (hash-chain.ts: the RFC 8785 text of { id, streamId, type, data, metadata }, exactly what its
 * hash covers), as a binary event (`application/octet-stream`: the client would JSON.parse and
 * re-encode a JSON event's data, and the bytes would no longer be the hashed ones); its ESDB
 * metadata is the JSON `{ "prevHash": …, "hash": … }`. A read gives the stored bytes back as
 * `content` and parses them once for `data` and `metadata`; verify hashes those bytes.
 *
 * Events written before the adapter stored their content (JSON events whose data is the
 * caller's data and whose metadata is the caller's metadata with `prevHash` and `hash` added)
 * are still read: their content is rendered from what the client parsed, as it was hashed.
 */
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

/**
 * Events written before the adapter stored their content kept the chain in the caller's
 * metadata, so those keys stay reserved: a stored event must read back unambiguously.
 */
export const assertNoHashKeys = (event: EventToAppend): void => {
  for (const key of HASH_METADATA_KEYS) {
    if (Object.hasOwn(event.metadata, key)) {
      throw new InvalidArgument(
        `event ${event.id}: metadata key "${key}" is reserved by the EventStoreDB adapter (it stores the hash chain there)`,
      );
    }
  }
};

/** `content` is the event's canonical content, the text whose sha256 `link.hash` covers. */
export const toEventData = (event: EventToAppend, link: ChainLink, content: string): EventData => {
  assertNoHashKeys(event);
  return binaryEvent({
    id: event.id,
    type: event.type,
    data: new TextEncoder().encode(content),
    metadata: { prevHash: link.prevHash, hash: link.hash },
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

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The stored content of a binary event, and the data and metadata it holds. */
const storedContent = (
  event: ClientRecordedEventLike,
): { content: string; data: unknown; metadata: EventMetadata } => {
  if (!(event.data instanceof Uint8Array)) {
    throw notOurs(event, 'has no stored content: it was not written by Cogitave');
  }
  let content: string;
  let parsed: unknown;
  try {
    content = UTF8.decode(event.data);
    parsed = JSON.parse(content);
  } catch {
    throw notOurs(event, 'holds no JSON content: it was not written by Cogitave');
  }
  if (!isRecord(parsed) || !isRecord(parsed['metadata'])) {
    throw notOurs(event, 'holds no event content: it was not written by Cogitave');
  }
  // What the caller gave, checked by validateAppend when it was written; verify checks that
  // the content names this event (id, stream, type) and that its hash covers these bytes.
  return { content, data: parsed['data'], metadata: parsed['metadata'] as EventMetadata };
};

export const fromClientEvent = (event: ClientRecordedEventLike): RecordedEvent => {
  if (!isRecord(event.metadata))
    throw notOurs(event, 'has no metadata: it was not written by Cogitave');
  const { prevHash, hash, ...legacyMetadata } = event.metadata;
  if (typeof hash !== 'string' || (prevHash !== null && typeof prevHash !== 'string')) {
    throw notOurs(event, 'carries no hash chain in its metadata: it was not written by Cogitave');
  }
  if (!event.position || event.position.commit === NO_POSITION) {
    throw notOurs(event, 'has no $all position: the adapter needs EventStoreDB 22.6 or later');
  }
  const stored = event.isJson
    ? // Written before events kept their content: rendered as it was hashed.
      (() => {
        const metadata = legacyMetadata as EventMetadata;
        const content = eventContent(event.streamId, {
          id: event.id,
          type: event.type,
          data: event.data,
          metadata,
        });
        return { content, data: event.data, metadata };
      })()
    : storedContent(event);
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: toPosition(event.position),
    type: event.type,
    data: stored.data,
    metadata: stored.metadata,
    content: stored.content,
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
      sha256Hex(stored.content) === contentHash(streamId, event) &&
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
