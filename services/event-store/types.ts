/**
 * The event store port. Both adapters (Postgres and EventStoreDB) implement it and pass the
 * same contract suite (test/int/event-store/contract.ts).
 */

/**
 * An opaque, totally ordered, checkpointable position in the global log. Compare positions
 * with `comparePositions`; store them as the string they are.
 */
export type Position = string & { readonly __brand: 'Position' };

/** `nextRevision` of the last append, or one of the named expectations. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** Metadata every event carries. Time and ids come from the command, never from the store. */
export interface EventMetadata {
  readonly actor: string;
  readonly correlationId: string;
  readonly causationId: string;
  /** ISO-8601 timestamp of the decision that produced the event. */
  readonly at: string;
  readonly [extra: string]: unknown;
}

export interface EventToAppend<Type extends string = string, Data = unknown> {
  /** A UUID. Re-appending the same ids at the same revision is an idempotent success. */
  readonly id: string;
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  readonly id: string;
  readonly streamId: string;
  /** 0-based revision within the stream. */
  readonly revision: bigint;
  readonly position: Position;
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
  /**
   * The event as stored: the RFC 8785 JSON of `{ id, streamId, type, data, metadata }`, the
   * exact text whose UTF-8 bytes the hash covers (`data` and `metadata` are parsed from it).
   */
  readonly content: string;
  /** Hash of the previous event of the stream; null for revision 0. */
  readonly prevHash: string | null;
  /** sha256 over prevHash, revision and the sha256 of `content` (see hash-chain.ts). */
  readonly hash: string;
}

export interface AppendOptions {
  readonly expectedRevision: ExpectedRevision;
}

export interface AppendResult {
  /** Revision of the last event now in the stream: pass it as the next `expectedRevision`. */
  readonly nextRevision: bigint;
  /** Position of the last appended event. */
  readonly position: Position;
}

/** One stream's part of an atomic append (`EventStore.appendAtomically`). */
export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly EventToAppend[];
  readonly options: AppendOptions;
}

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  readonly direction?: Direction;
  /** Inclusive start revision (default: first event forwards, last event backwards). */
  readonly fromRevision?: bigint;
  readonly maxCount?: number;
}

/** Selects events of the global log. Both lists are ORed within themselves and ANDed together. */
export interface EventFilter {
  readonly streamPrefixes?: readonly string[];
  readonly eventTypes?: readonly string[];
  /** Only the streams of one hash partition (see `StreamPartition`). */
  readonly partition?: StreamPartition;
}

/**
 * Partition `index` of `count`: every stream id hashes to exactly one, so the partitions of a
 * filter are disjoint and together hold all its events, each stream whole and in order (what
 * a parallel rebuild of per-stream state reads, one partition per worker). The hash is the
 * adapter's own: stable for a store, not comparable between stores.
 */
export interface StreamPartition {
  /** 1 to MAX_PARTITIONS. */
  readonly count: number;
  /** 0 to count - 1. */
  readonly index: number;
}

export interface ReadAllOptions {
  readonly direction?: Direction;
  /** Exclusive: events strictly after (forwards) or before (backwards) this position. */
  readonly fromPosition?: Position;
  readonly maxCount?: number;
  readonly filter?: EventFilter;
}

export interface SubscribeOptions {
  /** Exclusive checkpoint: delivery resumes strictly after it. Omitted: from the start. */
  readonly fromPosition?: Position;
  readonly filter?: EventFilter;
  readonly signal?: AbortSignal;
  /** Called once when the subscription has read everything committed so far. */
  readonly onCaughtUp?: () => void;
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  /** Ends the iteration; pending `next()` calls resolve as done. */
  close(): Promise<void>;
}

export interface EventStore {
  readonly kind: 'postgres' | 'pglite' | 'esdb';
  append(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions,
  ): Promise<AppendResult>;
  /** Events of one stream; an empty array when the stream does not exist. */
  /**
   * Optional (stores with transactions across streams: Postgres, PGlite). Appends to several
   * streams at once, all or nothing, in one transaction; answers one result per append, in
   * order. Each part behaves as `append` would (its expected revision, idempotent when the
   * same events are appended again), and an event id stored in any stream refuses the whole
   * append with DuplicateEventId unless it is that same event retried: ids are unique across
   * the store. Absent on EventStoreDB, which has neither.
   */
  appendAtomically?(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Position of the newest committed event (null: the log is empty). `readAll` and
   * subscriptions show it once every transaction that began before it has ended; a decision
   * that must see everything committed waits for that (`settleLog`).
   */
  lastPosition(): Promise<Position | null>;
  /** Catches up from the checkpoint, then follows new events until closed or aborted. */
  subscribeToAll(options?: SubscribeOptions): Subscription;
  close(): Promise<void>;
}
