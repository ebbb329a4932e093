import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
} from '../../../services/event-store/postgres/adapter.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase } from '../../support/postgres.js';
import { describeEventStoreContract, type ContractSubject } from './contract.js';

const logger = createLogger('silent');

const subjectFor = async (
  database: Database,
  cleanup: () => Promise<void>,
): Promise<ContractSubject> => {
  await migrate(database.pool, [eventStoreMigrations], logger);
  const store = createPostgresEventStore({ database, logger, pollIntervalMs: 200 });
  return {
    store,
    concurrentTransactions: database.kind === 'postgres',
    openTransaction: async () => {
      const client = await database.pool.connect();
      await client.query('BEGIN');
      const finish = async (sql: string): Promise<void> => {
        try {
          await client.query(sql);
        } finally {
          client.release();
        }
        store.committed();
      };
      return {
        append: (streamId, events, options) =>
          store.appendInTransaction(client, streamId, events, options),
        commit: () => finish('COMMIT'),
        rollback: () => finish('ROLLBACK'),
      };
    },
    close: async () => {
      await store.close();
      await database.close();
      await cleanup();
    },
  };
};

describeEventStoreContract('postgres', async () => {
  const throwaway = await createThrowawayDatabase('contract');
  const database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 20,
    logger,
  });
  return subjectFor(database, () => throwaway.drop());
});

describeEventStoreContract('pglite', async () => {
  const database = await openDatabase({ dataDir: 'memory://', poolSize: 1, logger });
  return subjectFor(database, () => Promise.resolve());
});
