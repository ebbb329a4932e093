import type pg from 'pg';

/**
 * Runs `work` in a transaction on a connection of its own: COMMIT when it returns, ROLLBACK
 * when it throws (the error is rethrown). A connection that cannot even roll back is broken
 * and is discarded instead of going back to the pool.
 */
export const inTransaction = async <T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
};
