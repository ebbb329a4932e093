import { openDatabase, type Database } from '../services/database/database.js';
import { createPostgresEventStore } from '../services/event-store/postgres/adapter.js';
import type { EventStore } from '../services/event-store/types.js';
import { createLogger } from '../services/runtime/logger.js';

export interface WorkerStore {
  readonly database: Database;
  readonly eventStore: EventStore;
}

/**
 * A rebuild worker thread's own connections (two: one reads ahead while the other holds the
 * load's transaction) and Postgres event store, for `work`, closed after it.
 */
export const withWorkerStore = async <T>(
  connectionString: string,
  work: (store: WorkerStore) => Promise<T>,
): Promise<T> => {
  const logger = createLogger('silent');
  const database = await openDatabase({
    databaseUrl: connectionString,
    dataDir: '',
    poolSize: 2,
    logger,
  });
  const eventStore = createPostgresEventStore({ database, logger });
  try {
    return await work({ database, eventStore });
  } finally {
    await eventStore.close();
    await database.close();
  }
};
