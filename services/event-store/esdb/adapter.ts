/**
 * The event store port on EventStoreDB (gRPC client 6.x, server 22.6+; 23.10+ for onCaughtUp).
 * The server knows nothing of the hash chain, so the adapter reads the stream head, computes
 * the links and appends at that exact revision: a concurrent writer makes the append fail
 * rather than fork the chain. While the node is unavailable (a restart, a dropped connection,
 * a timeout) appends and reads are retried for a while; a retried append carries the same
 * event ids and first looks for them, so an append whose answer was lost is found, not
 * repeated.
 */
import { createSubscriptionRegistry } from '../subscription-registry.js';
import type { EventStore, SubscribeOptions } from '../types.js';
import { validateReadAll, validateReadStream } from '../validation.js';
import { append } from './append.js';
import { openEsdbConnection, type EsdbEventStoreOptions } from './connection.js';
import { readAll, readStream } from './reads.js';
import { follow } from './subscription.js';

export type { EsdbEventStoreOptions } from './connection.js';

// The adapter's parts live beside it: connection.ts (the client and its retries), reads.ts,
// append.ts (the chain computed here, replays found by id) and subscription.ts.

export const createEsdbEventStore = (options: EsdbEventStoreOptions): EventStore => {
  const connection = openEsdbConnection(options);
  const subscriptions = createSubscriptionRegistry();
  const readAllOf: EventStore['readAll'] = (read) => readAll(connection, read);

  return {
    kind: 'esdb',
    append: (streamId, events, appendOptions) =>
      append(connection, streamId, events, appendOptions),
    readStream: async (streamId, read = {}) => {
      validateReadStream(streamId, read);
      return readStream(connection, streamId, read);
    },
    readAll: readAllOf,
    // EventStoreDB's $all shows every committed event at once: the newest one read is it.
    lastPosition: async () =>
      (await readAllOf({ direction: 'backwards', maxCount: 1 }))[0]?.position ?? null,
    subscribeToAll: (subscribe: SubscribeOptions = {}) => {
      validateReadAll({ fromPosition: subscribe.fromPosition, filter: subscribe.filter });
      return subscriptions.track(follow(connection, subscribe));
    },
    close: async () => {
      connection.stopRetrying();
      await subscriptions.closeAll();
      await connection.client.dispose();
    },
  };
};
