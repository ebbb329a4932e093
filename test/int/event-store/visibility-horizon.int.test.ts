import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { newEvent } from './contract.js';

// The global log's visibility horizon is per database: a transaction left open in another
// database of the same cluster must not hold this database's readers back, while one open in
// this database still must (it may commit events that sort before later ones).
describe('postgres adapter: visibility horizon', () => {
  const logger = createLogger('silent');
  let ours: ThrowawayDatabase;
  let other: ThrowawayDatabase;
  let database: Database;
  let store: PostgresEventStore;

  beforeAll(async () => {
    ours = await createThrowawayDatabase('horizon');
    other = await createThrowawayDatabase('horizon_other');
    database = await openDatabase({ databaseUrl: ours.url, dataDir: '', poolSize: 4, logger });
    await migrate(database.pool, [eventStoreMigrations], logger);
    store = createPostgresEventStore({ database, logger });
  });
  afterAll(async () => {
    await store.close();
    await database.close();
    await ours.drop();
    await other.drop();
  });

  const readAllIds = async (): Promise<string[]> =>
    (await store.readAll({ maxCount: 1000 })).map((event) => event.id);

  /** A client holding a transaction that has an xid, in the given database. */
  const openTransaction = async (url: string): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
    return client;
  };

  it('given a transaction held open in another database, when an event is appended here, then readers see it at once', async () => {
    const blocker = await openTransaction(other.url);
    try {
      const event = newEvent();
      await store.append('horizon-a', [event], { expectedRevision: 'no_stream' });
      expect(await readAllIds()).toContain(event.id);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
  });

  it('given a transaction held open in this database, when a later one appends, then readers wait for the first to end', async () => {
    const blocker = await openTransaction(ours.url);
    const event = newEvent();
    try {
      await store.append('horizon-b', [event], { expectedRevision: 'no_stream' });
      expect(await readAllIds()).not.toContain(event.id);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expect(await readAllIds()).toContain(event.id);
  });
});
