import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Integration tests run against a real Postgres server. Each test file gets its own throwaway
 * database, created through TEST_DATABASE_URL (an admin connection, default the local
 * `postgres` database) and dropped afterwards.
 */
export const adminUrl = (): string =>
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ThrowawayDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export const createThrowawayDatabase = async (label: string): Promise<ThrowawayDatabase> => {
  const name = `cogitave_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `Integration tests need Postgres at ${adminUrl()} (set TEST_DATABASE_URL, or start it: pg_ctlcluster <version> main start): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      try {
        // pg's Pool#end resolves once its clients are told to end, not once their sessions have
        // closed. FORCE would terminate such a session and its client, whose error listener is
        // gone by then, would throw that 57P01 as an uncaught exception after the file's tests.
        // So wait (briefly) for the sessions to leave; FORCE only ends what truly lingers.
        for (let wait = 0; wait < 100; wait++) {
          const sessions = await client.query<{ count: number }>(
            'SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (sessions.rows[0]?.count === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
};
