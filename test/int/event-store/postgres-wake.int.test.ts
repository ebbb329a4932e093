import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { RecordedEvent } from '../../../services/event-store/types.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { newEvent } from './contract.js';

/**
 * Subscribers on server Postgres, woken by category and position: a subscriber of one
 * category follows its appends, and one woken for an event an older transaction still hides
 * reads again soon after that transaction ends, not at its next poll.
 */
describe('postgres adapter: wake-ups by category and position', () => {
  const logger = createLogger('silent');
  let throwaway: ThrowawayDatabase;
  let database: Database;
  let store: PostgresEventStore;

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('wake');
    database = await openDatabase({
      databaseUrl: throwaway.url,
      dataDir: '',
      poolSize: 4,
      logger,
    });
    await migrate(database.pool, [eventStoreMigrations], logger);
    // A poll far longer than any wait below: what arrives in time came by a wake-up.
    store = createPostgresEventStore({ database, logger, pollIntervalMs: 10_000 });
  });
  afterAll(async () => {
    await store.close();
    await database.close();
    await throwaway.drop();
  });

  /** Collects what a subscription delivers, from the end of the log on. */
  const follow = async (prefix: string) => {
    const received: RecordedEvent[] = [];
    const last = await store.lastPosition();
    let caughtUp!: () => void;
    const ready = new Promise<void>((resolve) => (caughtUp = resolve));
    const subscription = store.subscribeToAll({
      ...(last === null ? {} : { fromPosition: last }),
      filter: { streamPrefixes: [prefix] },
      onCaughtUp: () => {
        caughtUp();
      },
    });
    const running = (async () => {
      for await (const event of subscription) received.push(event);
    })();
    await ready;
    return {
      received,
      until: async (count: number, ms: number): Promise<number> => {
        const started = performance.now();
        while (received.length < count && performance.now() - started < ms)
          await new Promise((resolve) => setTimeout(resolve, 5));
        return performance.now() - started;
      },
      close: async () => {
        await subscription.close();
        await running;
      },
    };
  };

  it('given subscribers of two categories, when each is appended to, then each gets its own at once', async () => {
    const networks = await follow('wnet-');
    const requests = await follow('wreq-');
    try {
      await store.append('wreq-1', [newEvent()], { expectedRevision: 'no_stream' });
      await store.append('wnet-1', [newEvent()], { expectedRevision: 'no_stream' });
      expect(await networks.until(1, 2000)).toBeLessThan(1000);
      expect(await requests.until(1, 2000)).toBeLessThan(1000);
      expect(networks.received.map((event) => event.streamId)).toEqual(['wnet-1']);
      expect(requests.received.map((event) => event.streamId)).toEqual(['wreq-1']);
    } finally {
      await networks.close();
      await requests.close();
    }
  });

  it('given an older transaction open when an event is appended, when it ends, then the subscriber gets the event well before its next poll', async () => {
    const subscriber = await follow('whorizon-');
    const blocker = new pg.Client({ connectionString: throwaway.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_current_xact_id()');
      await store.append('whorizon-1', [newEvent()], { expectedRevision: 'no_stream' });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(subscriber.received).toHaveLength(0);
      await blocker.query('ROLLBACK');
      expect(await subscriber.until(1, 5000)).toBeLessThan(2000);
      expect(subscriber.received).toHaveLength(1);
    } finally {
      await blocker.end();
      await subscriber.close();
    }
  });
});
