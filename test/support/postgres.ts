import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Integration tests run against a real Postgres server. Each test file gets its own throwaway
 * database, created through TEST_DATABASE_URL (an admin connection, default the local
 * `postgres` database) and dropped afterwards.
 *
 * TEST_DATABASE_PREFIX (default `cogitave`) starts the name of every database the tests and
 * benchmarks create (`<prefix>_<label>_<random>`). Give each checkout or CI job sharing one
 * server its own prefix (`TEST_DATABASE_PREFIX=ci_1234 npm run test:int`) to tell their
 * databases apart, e.g. to find and drop what a killed run left behind with `<prefix>_%`.
 * Lower-case letters, digits and underscores, starting with a letter or underscore.
 */
export const adminUrl = (): string =>
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ThrowawayDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export const DEFAULT_DATABASE_PREFIX = 'cogitave';

/** TEST_DATABASE_PREFIX, or the default; refuses a prefix that is not a plain identifier. */
export const databasePrefix = (
  prefix: string | undefined = process.env.TEST_DATABASE_PREFIX,
): string => {
  if (prefix === undefined || prefix === '') return DEFAULT_DATABASE_PREFIX;
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) {
    throw new Error(
      `TEST_DATABASE_PREFIX must be lower-case letters, digits and underscores, starting with a letter or underscore (it starts database names); got "${prefix}"`,
    );
  }
  return prefix;
};

/**
 * A fresh database name for `label`: `<prefix>_<label>_<8 random hex digits>`, the label's
 * other characters made underscores. The one place test code names a database it creates.
 */
export const testDatabaseName = (label: string): string =>
  `${databasePrefix()}_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;

export const createThrowawayDatabase = async (label: string): Promise<ThrowawayDatabase> => {
  const name = testDatabaseName(label);
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
