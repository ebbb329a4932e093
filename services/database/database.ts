import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import type { Logger } from '../runtime/logger.js';
import { redactUrl } from '../runtime/logger.js';

/**
 * The Postgres the process talks to: a server (DATABASE_URL) or embedded PGlite in a local
 * folder. Both are reached through a `pg.Pool`, so every query function and migration runs
 * unchanged on either.
 */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly pool: pg.Pool;
  /** Where the data lives, safe to log (credentials removed). */
  readonly location: string;
  /** Server only: a fresh client outside the pool, for LISTEN. PGlite has one session. */
  readonly connectionString: string | undefined;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  readonly poolSize: number;
  readonly logger: Logger;
}

export const openDatabase = async (options: DatabaseOptions): Promise<Database> =>
  options.databaseUrl ? openServer(options.databaseUrl, options) : openEmbedded(options);

const openServer = (url: string, options: DatabaseOptions): Database => {
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize });
  // An idle client losing its connection (server restart) must not crash the process.
  pool.on('error', (error) => {
    options.logger.warn({ err: error }, 'idle database connection failed');
  });
  // pg-pool listens for errors only on idle clients. A checked-out client whose session the
  // server ends between two queries (restart, pg_terminate_backend) emits 'error' with no
  // listener, which crashes the process; its next query fails instead, and the holder releases
  // it as broken.
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      options.logger.debug({ err: error }, 'database connection failed while checked out');
    });
  });
  return {
    kind: 'postgres',
    pool,
    location: redactUrl(url),
    connectionString: url,
    close: () => pool.end(),
  };
};

const openEmbedded = async (options: DatabaseOptions): Promise<Database> => {
  // Imported lazily: the WASM build is only loaded when the embedded default is used.
  const [{ PGlite }, { createPgConfig }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/node-postgres'),
  ]);
  const dataDir = options.dataDir.startsWith('memory://')
    ? options.dataDir
    : resolve(options.dataDir);
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir);
  // PGlite is a single session: its pg config pins the pool to one connection, which also
  // serialises transactions (two clients would otherwise interleave inside one session).
  const pool = new pg.Pool(createPgConfig(pglite));
  return {
    kind: 'pglite',
    pool,
    location: dataDir,
    connectionString: undefined,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
};
