import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cancelled, cancellable } from '../../../services/database/cancel.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/** A cancelled caller's statement stops in Postgres, not only in the process. */
describe('cancellable', () => {
  let database: ThrowawayDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createThrowawayDatabase('cancel');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  /** The statements of `pid` that Postgres is running now. */
  const running = async (pid: number) =>
    (
      await pool.query<{ query: string }>(
        "SELECT query FROM pg_stat_activity WHERE pid = $1 AND state = 'active'",
        [pid],
      )
    ).rows;

  it('given a long statement, when the signal aborts, then the statement is gone from pg_stat_activity', async () => {
    const client = await pool.connect();
    const pid = (client as unknown as { processID: number }).processID;
    const controller = new AbortController();
    try {
      const started = Date.now();
      const work = cancellable(pool, client, controller.signal, () =>
        client.query('SELECT pg_sleep(30)'),
      );
      // It is running in Postgres before the caller goes away.
      for (let i = 0; i < 100 && (await running(pid)).length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await running(pid)).map((row) => row.query)).toEqual(['SELECT pg_sleep(30)']);

      controller.abort();
      await expect(work).rejects.toBeInstanceOf(Cancelled);
      expect(await running(pid)).toEqual([]);
      // Ended by the cancel, far short of the statement's 30 s.
      expect(Date.now() - started).toBeLessThan(20_000);
      // The session is usable again: the cancel did not linger for the next statement.
      expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
  });

  it('given a signal already aborted, when work is offered, then it never runs', async () => {
    const client = await pool.connect();
    let ran = false;
    try {
      await expect(
        cancellable(pool, client, AbortSignal.abort(), () => {
          ran = true;
          return client.query('SELECT 1');
        }),
      ).rejects.toBeInstanceOf(Cancelled);
      expect(ran).toBe(false);
    } finally {
      client.release();
    }
  });

  it('given no abort, when the statement fails on its own, then its own error comes back', async () => {
    const client = await pool.connect();
    try {
      await expect(
        cancellable(pool, client, new AbortController().signal, () => client.query('SELECT 1/0')),
      ).rejects.toMatchObject({ code: '22012' });
    } finally {
      client.release();
    }
  });
});
