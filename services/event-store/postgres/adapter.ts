import type { Database } from '../../database/database.js';
import type { MigrationSet } from '../../database/migrate.js';
import type { Queryable } from '../../database/queryable.js';
import { CogitaveError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/logger.js';
import { DuplicateEventId, WrongExpectedVersion } from '../errors.js';
import { chainHash, sha256Hex } from '../hash-chain.js';
import { encodePosition } from '../position.js';
import { createSubscriptionRegistry } from '../subscription-registry.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from '../types.js';
import { validateAppend, validateReadAll, validateReadStream } from '../validation.js';
import { createGroupCommitter } from './group-commit.js';
import { createHeadCache, type StreamHead } from './head-cache.js';
import {
  appendEvents,
  insertChained,
  selectEventOwner,
  selectLastPosition,
  selectLog,
  selectStream,
  type AppendArgs,
  type AppendRow,
  type ChainedRow,
  type InsertedRow,
} from './queries.js';
import { createPollingSubscription } from './subscription.js';
import { mapDatabaseError } from '../../database/transient.js';
import { inTransaction } from '../../database/transaction.js';
import { createWake } from './wake.js';

export const eventStoreMigrations: MigrationSet = {
  owner: 'event-store',
  directory: new URL('./migrations/', import.meta.url),
};

export interface PostgresEventStore extends EventStore {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Appends as part of a transaction the caller owns (the client has run BEGIN). The events
   * become visible when the caller commits; call `committed()` then to wake subscribers now
   * rather than at their next poll.
   */
  appendInTransaction(
    client: Queryable,
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions,
  ): Promise<AppendResult>;
  committed(): void;
}

export interface PostgresEventStoreOptions {
  readonly database: Database;
  readonly logger: Logger;
  /** Subscribers re-read at least this often without a wake-up (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** Events per page when catching up (default 500). */
  readonly batchSize?: number;
  /** Append groups written at once on server Postgres (default 2); see group-commit.ts. */
  readonly appendConcurrency?: number;
  /**
   * A following subscriber reads at most once per this many ms (default 10): a burst of small
   * appends reaches it, and its projection, as one page. See subscription.ts.
   */
  readonly followSpacingMs?: number;
  /** Streams whose newest (revision, hash) is remembered for the fast path (default 10,000). */
  readonly headCacheSize?: number;
}

const DEFAULT_READ_COUNT = 1000;

const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  error instanceof Error &&
  (error as { code?: unknown }).code === '23505' &&
  (constraint === undefined || (error as { constraint?: unknown }).constraint === constraint);

export const createPostgresEventStore = (
  options: PostgresEventStoreOptions,
): PostgresEventStore => {
  const { database, logger } = options;
  const wake = createWake(database, logger);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = options.batchSize ?? 500;
  const subscriptions = createSubscriptionRegistry();

  const heads = createHeadCache(options.headCacheSize ?? 10_000);
  const named = database.kind === 'postgres';

  // Fast-path appends share transactions; see group-commit.ts.
  const committer = createGroupCommitter<readonly ChainedRow[], readonly InsertedRow[]>({
    // PGlite has one connection: a second group could only queue behind the first.
    maxInFlight: database.kind === 'pglite' ? 1 : (options.appendConcurrency ?? 2),
    maxItemsPerGroup: 200,
    maxWeightPerGroup: 2000,
    weight: (rows) => rows.length,
    write: async (appends) => {
      const inserted = await insertChained(database.pool, appends.flat(), named);
      // RETURNING keeps insertion order: each append's rows are the next slice.
      let end = 0;
      return appends.map((rows) => {
        const start = end;
        end += rows.length;
        if (inserted.length < end) throw new Error('insert returned too few rows');
        return inserted.slice(start, end);
      });
    },
  });

  const prepare = (
    streamId: string,
    events: readonly EventToAppend[],
    appendOptions: AppendOptions,
  ): AppendArgs => {
    const expected = appendOptions.expectedRevision;
    return {
      streamId,
      expected: typeof expected === 'bigint' ? expected.toString() : expected,
      events: validateAppend(streamId, events, appendOptions).map((event) => ({
        id: event.id,
        type: event.type,
        content: event.content,
      })),
    };
  };

  /** The head an append would extend, when it is known without asking the database. */
  // Only exact expectations take the fast path: with 'any' or 'stream_exists' writers contend
  // for the head by design, and the general path's lock serves them better than retries.
  // Not on PGlite: its pg shim loses track of the protocol after a failed INSERT ... RETURNING.
  const knownHead = (
    streamId: string,
    expected: ExpectedRevision,
  ): StreamHead | 'new' | undefined => {
    if (database.kind !== 'postgres') return undefined;
    if (expected === 'no_stream') return 'new';
    const head = heads.get(streamId);
    return head && expected === head.revision ? head : undefined;
  };

  /** Revisions and chain links for an append on top of `head`, computed here. */
  const chain = (args: AppendArgs, head: StreamHead | 'new'): ChainedRow[] => {
    let revision = head === 'new' ? -1n : head.revision;
    let prevHash = head === 'new' ? null : head.hash;
    return args.events.map((event) => {
      revision += 1n;
      const content = Buffer.from(event.content, 'utf8');
      const hash = chainHash(prevHash, revision, sha256Hex(content));
      const row: ChainedRow = {
        stream_id: args.streamId,
        stream_revision: revision.toString(),
        event_id: event.id,
        event_type: event.type,
        content,
        prev_hash: prevHash,
        hash,
      };
      prevHash = hash;
      return row;
    });
  };

  /** Remembers the newest chained row of each stream among `rows` (they are committed). */
  const rememberRows = (rows: readonly ChainedRow[]): void => {
    for (const row of rows)
      heads.remember(row.stream_id, { revision: BigInt(row.stream_revision), hash: row.hash });
  };

  /** An append's result: its last inserted row. */
  const insertedResult = (inserted: readonly InsertedRow[]): AppendResult => {
    const last = inserted.at(-1);
    if (!last) throw new Error('insert returned too few rows');
    return {
      nextRevision: BigInt(last.stream_revision),
      position: encodePosition(BigInt(last.transaction_id), BigInt(last.position)),
    };
  };

  /** The fast path; undefined when it does not apply or lost a race (then: the general path). */
  const appendFast = async (
    args: AppendArgs,
    expected: ExpectedRevision,
  ): Promise<AppendResult | undefined> => {
    const head = knownHead(args.streamId, expected);
    if (head === undefined) return undefined;
    const rows = chain(args, head);
    try {
      const inserted = await committer.submit(rows);
      rememberRows(rows);
      return insertedResult(inserted);
    } catch (error) {
      // Someone else wrote first (or these ids exist): the general path tells which.
      if (isUniqueViolation(error)) {
        heads.forget(args.streamId);
        return undefined;
      }
      throw mapDatabaseError(error);
    }
  };

  /** The general path, through append_events; retried when it races a fast-path writer. */
  const appendGeneral = async (
    db: Queryable,
    args: AppendArgs,
    expected: ExpectedRevision,
    committed: boolean,
  ) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const row = await appendEvents(db, args, named);
        const outcome = interpret(row, args.streamId, expected);
        const head =
          row.last_hash !== null && row.next_revision !== null
            ? { revision: BigInt(row.next_revision), hash: row.last_hash }
            : undefined;
        if (committed && head) heads.remember(args.streamId, head);
        return { ...outcome, head };
      } catch (error) {
        // A fast-path writer took the revision between our read and insert; each lost race is
        // someone else's progress, so this ends.
        if (committed && attempt < 50 && isUniqueViolation(error, 'events_stream_revision_key'))
          continue;
        return failure(error, args);
      }
    }
  };

  const failure = async (error: unknown, args: AppendArgs): Promise<never> => {
    if (isUniqueViolation(error, 'events_event_id_key')) {
      // An id beyond the first was reused; the first is checked inside append_events.
      const ids = args.events.map((event) => event.id);
      const owner = await selectEventOwner(database.pool, ids).catch(() => undefined);
      throw new DuplicateEventId(
        owner?.event_id ?? ids.join(', '),
        owner?.stream_id ?? args.streamId,
      );
    }
    throw mapDatabaseError(error);
  };

  const interpret = (
    row: AppendRow,
    streamId: string,
    expected: AppendOptions['expectedRevision'],
  ): { result: AppendResult; wrote: boolean } => {
    switch (row.outcome) {
      case 'appended':
      case 'idempotent':
        if (row.next_revision === null || row.transaction_id === null || row.last_position === null)
          break;
        return {
          result: {
            nextRevision: BigInt(row.next_revision),
            position: encodePosition(BigInt(row.transaction_id), BigInt(row.last_position)),
          },
          wrote: row.outcome === 'appended',
        };
      case 'wrong_expected_version':
        throw new WrongExpectedVersion(
          streamId,
          expected,
          row.actual_revision === null ? null : BigInt(row.actual_revision),
        );
      case 'duplicate_event_id':
        throw new DuplicateEventId(row.conflict_event ?? '?', row.conflict_stream ?? '?');
    }
    throw new CogitaveError(
      'INTERNAL',
      `append_events returned an unexpected row (${row.outcome})`,
    );
  };

  const store: PostgresEventStore = {
    kind: database.kind,

    append: async (streamId, events, appendOptions) => {
      const args = prepare(streamId, events, appendOptions);
      const expected = appendOptions.expectedRevision;
      const fast = await appendFast(args, expected);
      if (fast) {
        wake.appended();
        return fast;
      }
      const { result, wrote } = await appendGeneral(database.pool, args, expected, true);
      if (wrote) wake.appended();
      return result;
    },

    appendAtomically: async (appends) => {
      const parts = appends.map((part) => ({
        args: prepare(part.streamId, part.events, part.options),
        expected: part.options.expectedRevision,
      }));
      const streams = new Set(parts.map((part) => part.args.streamId));
      if (streams.size !== parts.length) {
        throw new CogitaveError(
          'INVALID_ARGUMENT',
          'an atomic append names a stream twice; give each stream one part',
        );
      }
      const known = parts.map((part) => knownHead(part.args.streamId, part.expected));
      if (known.every((head) => head !== undefined)) {
        // Every head is known: one item of the group commit (one INSERT, one transaction).
        const chained = parts.map((part, index) => chain(part.args, known[index] ?? 'new'));
        try {
          const inserted = await committer.submit(chained.flat());
          rememberRows(chained.flat());
          wake.appended();
          let end = 0;
          return chained.map((rows) => {
            const start = end;
            end += rows.length;
            return insertedResult(inserted.slice(start, end));
          });
        } catch (error) {
          if (!isUniqueViolation(error)) throw mapDatabaseError(error);
          for (const part of parts) heads.forget(part.args.streamId);
        }
      }
      // The general path, one transaction; streams locked in name order, so two atomic
      // appends over the same streams cannot deadlock.
      const order = parts
        .map((part, index) => ({ part, index }))
        .sort((x, y) => (x.part.args.streamId < y.part.args.streamId ? -1 : 1));
      type Done = { index: number; outcome: Awaited<ReturnType<typeof appendGeneral>> };
      const attempt = (): Promise<Done[]> =>
        inTransaction(database.pool, async (client) => {
          const done: Done[] = [];
          for (const { part, index } of order) {
            const outcome = await appendGeneral(client, part.args, part.expected, false);
            done.push({ index, outcome });
          }
          return done;
        });
      let outcomes: Done[] | undefined;
      for (let tries = 1; !outcomes; tries += 1) {
        try {
          outcomes = await attempt();
        } catch (error) {
          // A fast-path writer took a revision between a read and the insert: all of it again
          // (each lost race is someone else's progress, so this ends).
          if (tries >= 50 || !isUniqueViolation(error, 'events_stream_revision_key')) throw error;
        }
      }
      const results: AppendResult[] = new Array<AppendResult>(parts.length);
      let wrote = false;
      for (const { index, outcome } of outcomes) {
        results[index] = outcome.result;
        wrote ||= outcome.wrote;
        const streamId = parts[index]?.args.streamId;
        if (outcome.head && streamId !== undefined) heads.remember(streamId, outcome.head);
      }
      if (wrote) wake.appended();
      return results;
    },

    // Never the fast path, and no head is remembered: the caller's transaction may roll back.
    appendInTransaction: async (client, streamId, events, appendOptions) => {
      const args = prepare(streamId, events, appendOptions);
      return (await appendGeneral(client, args, appendOptions.expectedRevision, false)).result;
    },

    committed: () => {
      wake.appended();
    },

    readStream: async (streamId, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> => {
      validateReadStream(streamId, readOptions);
      const events = await selectStream(
        database.pool,
        streamId,
        readOptions.direction ?? 'forwards',
        readOptions.fromRevision,
        readOptions.maxCount ?? DEFAULT_READ_COUNT,
      ).catch((error: unknown) => {
        throw mapDatabaseError(error);
      });
      // A decider reads, then appends at the newest revision: remember it for the fast path.
      const newest = events.reduce<RecordedEvent | undefined>(
        (max, event) => (max && max.revision >= event.revision ? max : event),
        undefined,
      );
      if (newest) heads.remember(streamId, { revision: newest.revision, hash: newest.hash });
      return events;
    },

    readAll: async (readOptions: ReadAllOptions = {}): Promise<RecordedEvent[]> => {
      validateReadAll(readOptions);
      const page = await selectLog(
        database.pool,
        readOptions.direction ?? 'forwards',
        readOptions.fromPosition,
        readOptions.maxCount ?? DEFAULT_READ_COUNT,
        readOptions.filter,
        named,
      ).catch((error: unknown) => {
        throw mapDatabaseError(error);
      });
      return page.events;
    },

    lastPosition: () =>
      selectLastPosition(database.pool).catch((error: unknown) => {
        throw mapDatabaseError(error);
      }),

    subscribeToAll: (subscribeOptions = {}) => {
      validateReadAll({
        fromPosition: subscribeOptions.fromPosition,
        filter: subscribeOptions.filter,
      });
      const subscription = createPollingSubscription(
        {
          readPage: (after, maxCount, filter) =>
            selectLog(database.pool, 'forwards', after, maxCount, filter, named),
          wake,
          pollIntervalMs,
          batchSize,
          followSpacingMs: options.followSpacingMs ?? 10,
          logger,
        },
        subscribeOptions,
      );
      return subscriptions.track(subscription);
    },

    close: async () => {
      await committer.drain();
      await subscriptions.closeAll();
      await wake.close();
    },
  };
  return store;
};
