import type { Database } from '../../database/database.js';
import type { MigrationSet } from '../../database/migrate.js';
import type { Queryable } from '../../database/queryable.js';
import type { Logger } from '../../runtime/logger.js';
import { createSubscriptionRegistry } from '../subscription-registry.js';
import type { AppendOptions, AppendResult, EventStore, EventToAppend } from '../types.js';
import { validateReadAll } from '../validation.js';
import { appendFast, appendGeneral, createAppendPaths } from './append-paths.js';
import { prepareAppend } from './append-rows.js';
import { appendAtomically } from './atomic-append.js';
import { createHeadCache } from './head-cache.js';
import { selectLog } from './queries.js';
import { lastPosition, readAll, readStream } from './reads.js';
import { createPollingSubscription } from './subscription.js';
import { createWake } from './wake.js';

// The store's parts live beside it: append-rows.ts (pure shaping and chaining), append-paths.ts
// (the fast path through the group commit and the general path through append_events),
// atomic-append.ts (several streams in one transaction), reads.ts and subscription.ts.

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

export const createPostgresEventStore = (
  options: PostgresEventStoreOptions,
): PostgresEventStore => {
  const { database, logger } = options;
  const wake = createWake(database, logger);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = options.batchSize ?? 500;
  const subscriptions = createSubscriptionRegistry();
  const heads = createHeadCache(options.headCacheSize ?? 10_000);
  const paths = createAppendPaths(database, heads, options.appendConcurrency);

  const store: PostgresEventStore = {
    kind: database.kind,

    append: async (streamId, events, appendOptions) => {
      const args = prepareAppend(streamId, events, appendOptions);
      const expected = appendOptions.expectedRevision;
      const fast = await appendFast(paths, args, expected);
      if (fast) {
        wake.appended();
        return fast;
      }
      const { result, wrote } = await appendGeneral(paths, database.pool, args, expected, true);
      if (wrote) wake.appended();
      return result;
    },

    appendAtomically: (appends) => appendAtomically(paths, wake, appends),

    // Never the fast path, and no head is remembered: the caller's transaction may roll back.
    appendInTransaction: async (client, streamId, events, appendOptions) => {
      const args = prepareAppend(streamId, events, appendOptions);
      return (await appendGeneral(paths, client, args, appendOptions.expectedRevision, false))
        .result;
    },

    committed: () => {
      wake.appended();
    },

    readStream: (streamId, readOptions) => readStream(database, heads, streamId, readOptions),

    readAll: (readOptions) => readAll(database, readOptions),

    lastPosition: () => lastPosition(database),

    subscribeToAll: (subscribeOptions = {}) => {
      validateReadAll({
        fromPosition: subscribeOptions.fromPosition,
        filter: subscribeOptions.filter,
      });
      const subscription = createPollingSubscription(
        {
          readPage: (after, maxCount, filter) =>
            selectLog(database.pool, 'forwards', after, maxCount, filter, paths.named),
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
      await paths.committer.drain();
      await subscriptions.closeAll();
      await wake.close();
    },
  };
  return store;
};
