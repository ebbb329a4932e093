import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { isTransientDatabaseError } from '../../../services/database/transient.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * A pooled connection the server ends while it is checked out (between two queries of a
 * transaction, as when Postgres restarts): the process must not crash on pg's unhandled
 * 'error' event, the holder's next query must fail as a transient error, and the pool must
 * serve fresh connections afterwards.
 */
let throwaway: ThrowawayDatabase;
let database: Database;

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('connection_loss');
  database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 2,
    logger: createLogger('silent'),
  });
});

afterAll(async () => {
  await database.close();
  await throwaway.drop();
});

describe('server database connection lost while checked out', () => {
  it('given a checked-out client between two queries, when the server terminates its session, then nothing is thrown at the process, the next query fails as transient, and the pool recovers', async () => {
    const client = await database.pool.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!
      .pid;
    // 'end', not 'error': a listener of the test's own would hide the crash under test.
    const ended = new Promise<void>((resolve) => {
      client.once('end', () => {
        resolve();
      });
    });

    const admin = new pg.Client({ connectionString: throwaway.url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
    // The server's FATAL arrives as an 'error' event before 'end'; without a listener of the
    // pool's own it is an uncaught exception, which fails this test.
    await ended;

    const next = await client.query('SELECT 1').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(next).toBeInstanceOf(Error);
    expect(isTransientDatabaseError(next)).toBe(true);
    client.release(true);

    expect((await database.pool.query<{ ok: number }>('SELECT 1 AS ok')).rows[0]?.ok).toBe(1);
  });
});
