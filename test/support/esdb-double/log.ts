/**
 * The double's database: one transaction log of records (events and system events) and the
 * streams over it, with EventStoreDB's write rules. Pure state, no gRPC: the server translates
 * requests into calls here, and the state outlives any number of server restarts.
 *
 * Each rule cites the page of EventStoreDB's documentation it follows. Where the documentation
 * is silent the rule follows what the server does (its gRPC service, EventStore/EventStore
 * `src/EventStore.Core/Services`), and says so.
 */
import { randomUUID } from 'node:crypto';

/** Revision 2^63 - 1: the tombstone's event number, and the `$tb` of a soft-deleted stream. */
export const INT64_MAX = (1n << 63n) - 1n;

/** Ticks (100 ns) per millisecond: EventStoreDB reports `created` in .NET ticks since 1970. */
const TICKS_PER_MS = 10_000n;

export type ExpectedState =
  | { readonly kind: 'any' }
  | { readonly kind: 'no_stream' }
  | { readonly kind: 'stream_exists' }
  | { readonly kind: 'revision'; readonly revision: bigint };

export interface ProposedEvent {
  /** Lower-case UUID. */
  readonly id: string;
  readonly type: string;
  /** `application/json` or `application/octet-stream`. */
  readonly contentType: string;
  readonly data: Uint8Array;
  /** The event's custom metadata bytes (the client sends the caller's metadata JSON). */
  readonly metadata: Uint8Array;
}

export interface LogRecord extends ProposedEvent {
  readonly streamId: string;
  readonly revision: bigint;
  /** Offset of the record in the transaction log; commit and prepare position are both it. */
  readonly position: bigint;
  /** Ticks since the Unix epoch. */
  readonly created: bigint;
}

export type WriteOutcome =
  | {
      readonly kind: 'written';
      readonly first: bigint;
      readonly last: bigint;
      /** Position of the last record written (or, for a replay, of the last one found). */
      readonly position: bigint;
      /** True when every event was already there: acknowledged, nothing appended. */
      readonly idempotent: boolean;
    }
  /** current: the stream's last revision, null when it has none. */
  | { readonly kind: 'wrong-expected-version'; readonly current: bigint | null }
  | { readonly kind: 'stream-deleted' };

export type StreamRead =
  | { readonly kind: 'events'; readonly records: readonly LogRecord[] }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'deleted' };

export type Direction = 'forwards' | 'backwards';

/** Where a read starts: the first/last record, or an inclusive revision / exclusive bound. */
export type ReadFrom = 'start' | 'end' | bigint;

export interface RecordFilter {
  readonly on: 'stream' | 'type';
  readonly prefixes?: readonly string[];
  readonly regex?: RegExp;
}

export interface EsdbLogOptions {
  /** Clock for `created`. */
  readonly now?: () => Date;
  /**
   * Write the records a fresh server writes at start-up (the default users, the projection
   * subsystem's initialisation) and the links of the system projections (`$ce-`, `$et-`,
   * `$streams`), as a node started with `--run-projections=All` does. Default true.
   */
  readonly systemEvents?: boolean;
  /** Recent event ids kept for the idempotence check of `any` appends. Default 100,000. */
  readonly idempotenceCacheSize?: number;
}

interface StreamState {
  readonly records: LogRecord[];
  /** Last revision; -1 when the stream has none. */
  last: bigint;
  /** Revisions below this read as deleted (`$tb`); INT64_MAX while soft-deleted. */
  truncateBefore: bigint;
  tombstoned: boolean;
}

const encoder = new TextEncoder();
const json = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

/** A prepare record's framing: length prefix and suffix, header fields, ids, flags. */
const RECORD_OVERHEAD = 8 + 78;

const recordSize = (streamId: string, event: ProposedEvent): bigint =>
  BigInt(
    RECORD_OVERHEAD +
      encoder.encode(streamId).length +
      encoder.encode(event.type).length +
      event.data.length +
      event.metadata.length,
  );

export const isSystemStream = (streamId: string): boolean => streamId.startsWith('$');

/** `$$<stream>` holds a stream's metadata (its `$tb`, `$maxAge`, ACL, …). */
const metaStreamOf = (streamId: string): string => `$$${streamId}`;

export const matchesFilter = (filter: RecordFilter, record: LogRecord): boolean => {
  const subject = filter.on === 'stream' ? record.streamId : record.type;
  if (filter.regex) return filter.regex.test(subject);
  return (filter.prefixes ?? []).some((prefix) => subject.startsWith(prefix));
};

export class EsdbLog {
  private readonly records: LogRecord[] = [];
  private readonly streams = new Map<string, StreamState>();
  /** Event id → where it was written, newest last (insertion order), bounded. */
  private readonly recentIds = new Map<string, { streamId: string; revision: bigint }>();
  private readonly waiters = new Set<() => void>();
  private tail = 0n;
  private readonly now: () => Date;
  private readonly systemEvents: boolean;
  private readonly cacheSize: number;

  constructor(options: EsdbLogOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.systemEvents = options.systemEvents ?? true;
    this.cacheSize = options.idempotenceCacheSize ?? 100_000;
    if (this.systemEvents) this.writeStartupRecords();
  }

  /** Every record of the log, in log order (system events included). */
  all(): readonly LogRecord[] {
    return this.records;
  }

  get size(): number {
    return this.records.length;
  }

  recordAt(index: number): LogRecord | undefined {
    return this.records[index];
  }

  /** The position after the last record: where the next one will be written. */
  get end(): bigint {
    return this.tail;
  }

  /** Index of the first record at or after `position`. */
  indexFrom(position: bigint): number {
    let low = 0;
    let high = this.records.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.records[mid]!.position < position) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /**
   * Whether a read or subscription may start at `position`: the position of a record, or the
   * end of the log or beyond. Anything else is inside a record, which the server refuses
   * ("Trying to read from an invalid position"); the subscriptions page says the position
   * "will need to be a legitimate position in $all"
   * (https://developers.eventstore.com/clients/grpc/subscriptions.html#subscribing-from-a-specific-position-in-all).
   */
  isValidPosition(position: bigint): boolean {
    if (position >= this.tail) return true;
    return this.records[this.indexFrom(position)]?.position === position;
  }

  /** Resolves after the next write (or at once when `index` is already behind the end). */
  waitBeyond(index: number, signal?: AbortSignal): Promise<void> {
    if (index < this.records.length || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The stream's last revision; -1 when it has none (soft deletion keeps it). */
  lastRevision(streamId: string): bigint {
    return this.streams.get(streamId)?.last ?? -1n;
  }

  isTombstoned(streamId: string): boolean {
    return this.streams.get(streamId)?.tombstoned ?? false;
  }

  isSoftDeleted(streamId: string): boolean {
    return this.streams.get(streamId)?.truncateBefore === INT64_MAX;
  }

  /**
   * Appends `events` to a stream under an expected state, following "Optimistic concurrency
   * and idempotence"
   * (https://developers.eventstore.com/clients/dotnet/21.2/appending/optimistic-concurrency-and-idempotence.html):
   * with an exact expectation (a revision, or no_stream as revision -1) the events are appended
   * when the stream is there; when the stream is further on, the ids stored from the expected
   * revision on are compared: all committed already → acknowledged, nothing appended; none →
   * WrongExpectedVersion; some → WrongExpectedVersion. With `any` (and `stream_exists`) the
   * check is best effort, on recently written ids: all found → acknowledged; none → appended;
   * some → WrongExpectedVersion. `stream_exists` refuses a stream that has neither events nor
   * metadata ("Handling concurrency",
   * https://developers.eventstore.com/clients/grpc/appending-events.html#handling-concurrency).
   * A hard-deleted stream refuses every append; a soft-deleted one is reopened and continues at
   * its last revision + 1 (https://developers.eventstore.com/server/v23.10/streams.html#deleting-streams-and-events).
   */
  append(
    streamId: string,
    expected: ExpectedState,
    events: readonly ProposedEvent[],
  ): WriteOutcome {
    const stream = this.streams.get(streamId);
    if (stream?.tombstoned) return { kind: 'stream-deleted' };
    const current = stream?.last ?? -1n;
    const softDeleted = stream?.truncateBefore === INT64_MAX;
    const conflict = (): WriteOutcome => ({
      kind: 'wrong-expected-version',
      current: current < 0n ? null : current,
    });

    if (expected.kind === 'stream_exists') {
      // The server answers StreamDeleted here for a soft-deleted stream (IndexWriter.CheckCommit).
      if (softDeleted) return { kind: 'stream-deleted' };
      if (current < 0n && this.lastRevision(metaStreamOf(streamId)) < 0n) return conflict();
    }
    if (expected.kind === 'any' || expected.kind === 'stream_exists') {
      const found = events.map((event) => this.recentIds.get(event.id));
      const [first] = found;
      if (first?.streamId !== streamId) return this.write(streamId, events, softDeleted);
      if (found.every((where) => where?.streamId === streamId)) {
        return this.acknowledge(streamId, found.at(-1)!.revision, events.length);
      }
      return conflict();
    }
    const expectedRevision = expected.kind === 'no_stream' ? -1n : expected.revision;
    if (expectedRevision === current) return this.write(streamId, events, softDeleted);
    if (expectedRevision > current) return conflict();
    // The stream is further on: a replay of these very events, or a conflict.
    const stored = stream?.records ?? [];
    const matched = events.filter((event, index) => {
      const revision = expectedRevision + 1n + BigInt(index);
      return stored.find((record) => record.revision === revision)?.id === event.id;
    });
    if (matched.length === events.length) {
      return this.acknowledge(streamId, expectedRevision + BigInt(events.length), events.length);
    }
    // A soft-deleted stream takes no_stream as "start again" (it continues at current + 1).
    if (matched.length === 0 && expected.kind === 'no_stream' && softDeleted) {
      return this.write(streamId, events, true);
    }
    return conflict();
  }

  /** Reads a stream: revisions are 0-based; `from` is inclusive in both directions. */
  readStream(
    streamId: string,
    options: { direction: Direction; from: ReadFrom; count: bigint },
  ): StreamRead {
    const stream = this.streams.get(streamId);
    // Reading a hard-deleted stream answers StreamDeleted, a soft-deleted one StreamNotFound.
    if (stream?.tombstoned) return { kind: 'deleted' };
    const visible = (stream?.records ?? []).filter(
      (record) => record.revision >= (stream?.truncateBefore ?? 0n),
    );
    if (visible.length === 0) return { kind: 'not-found' };
    const { direction, count } = options;
    const from = options.from === 'start' ? 0n : options.from === 'end' ? INT64_MAX : options.from;
    const selected =
      direction === 'forwards'
        ? visible.filter((record) => record.revision >= from)
        : visible.filter((record) => record.revision <= from).reverse();
    // The client asks forwards from END only to follow a stream; nothing is there yet.
    const records = direction === 'forwards' && options.from === 'end' ? [] : selected;
    return { kind: 'events', records: records.slice(0, Number(count)) };
  }

  /**
   * Reads `$all`: every record, system events included ("Handling system events",
   * https://developers.eventstore.com/clients/grpc/reading-events.html#handling-system-events).
   * A position bound is inclusive forwards and exclusive backwards (the server's AllReader).
   */
  readAll(options: {
    direction: Direction;
    from: ReadFrom;
    count: bigint;
    filter?: RecordFilter;
  }): LogRecord[] {
    const { direction, from, count, filter } = options;
    const limit = Number(count);
    const picked: LogRecord[] = [];
    const accepts = (record: LogRecord): boolean => !filter || matchesFilter(filter, record);
    if (direction === 'forwards') {
      const first =
        from === 'start' ? 0 : from === 'end' ? this.records.length : this.indexFrom(from);
      for (let i = first; i < this.records.length && picked.length < limit; i += 1) {
        if (accepts(this.records[i]!)) picked.push(this.records[i]!);
      }
    } else {
      const first =
        from === 'start' ? -1 : from === 'end' ? this.records.length - 1 : this.indexFrom(from) - 1;
      for (let i = first; i >= 0 && picked.length < limit; i -= 1) {
        if (accepts(this.records[i]!)) picked.push(this.records[i]!);
      }
    }
    return picked;
  }

  /**
   * Soft delete: the stream reads as not found and can be appended to again, continuing where
   * it left off; its `$tb` is set to 2^63 - 1 in `$$<stream>` and its events stay in `$all`
   * until a scavenge (https://developers.eventstore.com/server/v23.10/streams.html#soft-delete-and-truncatebefore).
   */
  softDelete(streamId: string, expected: ExpectedState): WriteOutcome {
    const guard = this.deletionGuard(streamId, expected);
    if (guard) return guard;
    const stream = this.streams.get(streamId)!;
    stream.truncateBefore = INT64_MAX;
    return this.writeMetadata(streamId, INT64_MAX);
  }

  /**
   * Hard delete: a `$streamDeleted` tombstone closes the stream for good; reads answer
   * StreamDeleted and appends fail (https://developers.eventstore.com/server/v23.10/streams.html#hard-delete).
   */
  tombstone(streamId: string, expected: ExpectedState): WriteOutcome {
    const guard = this.deletionGuard(streamId, expected);
    if (guard) return guard;
    const stream = this.streams.get(streamId)!;
    const record = this.place(streamId, INT64_MAX, {
      id: randomUUID(),
      type: '$streamDeleted',
      contentType: 'application/octet-stream',
      data: new Uint8Array(),
      metadata: new Uint8Array(),
    });
    stream.tombstoned = true;
    this.wake();
    return {
      kind: 'written',
      first: INT64_MAX,
      last: INT64_MAX,
      position: record.position,
      idempotent: false,
    };
  }

  /** Writes a system event (a `$`-typed event in a `$`-stream), as the server's subsystems do. */
  writeSystem(streamId: string, type: string, data: unknown): WriteOutcome {
    return this.write(
      streamId,
      [
        {
          id: randomUUID(),
          type,
          contentType: 'application/json',
          data: json(data),
          metadata: new Uint8Array(),
        },
      ],
      false,
    );
  }

  /** The stream's `$tb` in its metadata stream (written as JSON with a 64-bit integer). */
  private writeMetadata(streamId: string, truncateBefore: bigint): WriteOutcome {
    return this.write(
      metaStreamOf(streamId),
      [
        {
          id: randomUUID(),
          type: '$metadata',
          contentType: 'application/json',
          data: encoder.encode(`{"$tb":${truncateBefore}}`),
          metadata: new Uint8Array(),
        },
      ],
      false,
    );
  }

  private deletionGuard(streamId: string, expected: ExpectedState): WriteOutcome | undefined {
    const stream = this.streams.get(streamId);
    if (stream?.tombstoned) return { kind: 'stream-deleted' };
    const current = stream?.last ?? -1n;
    const holds =
      expected.kind === 'any'
        ? current >= 0n
        : expected.kind === 'stream_exists'
          ? current >= 0n
          : expected.kind === 'no_stream'
            ? current < 0n
            : expected.revision === current;
    // Not documented for streams that do not exist: the double treats them as a conflict.
    if (!holds || current < 0n) {
      return { kind: 'wrong-expected-version', current: current < 0n ? null : current };
    }
    return undefined;
  }

  private acknowledge(streamId: string, last: bigint, count: number): WriteOutcome {
    const records = this.streams.get(streamId)?.records ?? [];
    const record = records.find((candidate) => candidate.revision === last);
    return {
      kind: 'written',
      first: last - BigInt(count) + 1n,
      last,
      position: record?.position ?? -1n,
      idempotent: true,
    };
  }

  private write(streamId: string, events: readonly ProposedEvent[], reopen: boolean): WriteOutcome {
    const stream = this.stream(streamId);
    const first = stream.last + 1n;
    if (reopen) {
      // Reopening a soft-deleted stream: only the new events are visible from now on.
      stream.truncateBefore = first;
      this.writeMetadata(streamId, first);
    }
    let position = -1n;
    for (const event of events) {
      const record = this.place(streamId, stream.last + 1n, event);
      stream.last = record.revision;
      position = record.position;
    }
    if (this.systemEvents && !isSystemStream(streamId)) this.linkSystemProjections(first, streamId);
    this.wake();
    return { kind: 'written', first, last: stream.last, position, idempotent: false };
  }

  private place(streamId: string, revision: bigint, event: ProposedEvent): LogRecord {
    const record: LogRecord = {
      ...event,
      streamId,
      revision,
      position: this.tail,
      created: BigInt(this.now().getTime()) * TICKS_PER_MS,
    };
    this.tail += recordSize(streamId, event);
    this.records.push(record);
    this.stream(streamId).records.push(record);
    this.recentIds.set(event.id, { streamId, revision });
    if (this.recentIds.size > this.cacheSize) {
      this.recentIds.delete(this.recentIds.keys().next().value!);
    }
    return record;
  }

  private stream(streamId: string): StreamState {
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { records: [], last: -1n, truncateBefore: 0n, tombstoned: false };
      this.streams.set(streamId, stream);
    }
    return stream;
  }

  private wake(): void {
    for (const resolve of [...this.waiters]) resolve();
  }

  /**
   * The system projections' link events (`$>`, data `revision@stream`) to `$ce-<category>`,
   * `$et-<type>` and, for a stream's first event, `$streams`
   * (https://developers.eventstore.com/server/v23.10/projections.html#system-projections). The
   * server writes them a little later; here they follow the write at once.
   */
  private linkSystemProjections(from: bigint, streamId: string): void {
    const stream = this.streams.get(streamId)!;
    const dash = streamId.indexOf('-');
    for (const record of stream.records.filter((candidate) => candidate.revision >= from)) {
      const targets = [
        ...(dash > 0 ? [`$ce-${streamId.slice(0, dash)}`] : []),
        ...(record.type.startsWith('$') ? [] : [`$et-${record.type}`]),
        ...(record.revision === 0n ? ['$streams'] : []),
      ];
      for (const target of targets) {
        const link = this.stream(target);
        this.place(target, link.last + 1n, {
          id: randomUUID(),
          type: '$>',
          contentType: 'application/octet-stream',
          data: encoder.encode(`${record.revision}@${streamId}`),
          metadata: json({
            $v: '1:-1:1:4',
            $c: Number(record.position),
            $p: Number(record.position),
            $o: streamId,
            $causedBy: record.id,
          }),
        });
        link.last += 1n;
      }
    }
  }

  /** What a node writes when it first starts: the default users, the projection subsystem. */
  private writeStartupRecords(): void {
    for (const login of ['admin', 'ops']) {
      this.writeSystem(`$user-${login}`, '$user', {
        loginName: login,
        fullName: login === 'admin' ? 'Event Store Administrator' : 'Event Store Operations',
        disabled: false,
        groups: login === 'admin' ? ['$admins'] : ['$ops'],
      });
      this.writeSystem('$users', '$UserCreated', login);
    }
    this.writeSystem('$projections-$all', '$ProjectionsInitialized', {});
  }
}
