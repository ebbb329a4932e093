import pg from 'pg';
import type { Logger } from '../runtime/logger.js';
import { redactUrl } from '../runtime/logger.js';
import { assertWritableFolder } from '../runtime/writable-folder.js';
import { openEmbeddedFolder } from './embedded/open.js';
import { createSharedSession, inProcessPool } from './embedded/shared-session.js';
import type { OwnerRecord } from './embedded/owner-record.js';

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
  /**
   * An embedded data folder: whether this process owns it (runs PGlite) or reaches the
   * owner's through its local channel, and who the owner is. Undefined for server Postgres
   * and in-memory PGlite.
   */
  readonly embedded?: { readonly role: 'owner' | 'client'; readonly owner: OwnerRecord };
  /**
   * The owner of an embedded folder: `listener` runs after a transaction of another process
   * that wrote, so this process's subscribers look for new events at once.
   */
  onForeignWrite?(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  readonly poolSize: number;
  readonly logger: Logger;
  /**
   * An embedded folder has one owner. `true`: this process must be it (serve); otherwise it
   * goes through the owner when there is one.
   */
  readonly mustOwn?: boolean;
  /** What this process runs (e.g. "cogitave proposals list"), as other processes are told. */
  readonly command?: string;
  /** How long to wait for an embedded folder's owner to answer or let go (default 60 s). */
  readonly waitMs?: number;
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
  if (!options.dataDir.startsWith('memory://')) {
    // A file in its place or no write permission: said as a setting, not a stack. (Free
    // space is serve's pre-flight check: a command reaching a running owner needs none.)
    assertWritableFolder('COGITAVE_DATA_DIR', options.dataDir);
    return openEmbeddedFolder({
      dataDir: options.dataDir,
      logger: options.logger,
      mustOwn: options.mustOwn ?? false,
      command: options.command ?? 'cogitave',
      ...(options.waitMs === undefined ? {} : { waitMs: options.waitMs }),
    });
  }
  // In memory: private to this process, nothing to share or lock.
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create(options.dataDir);
  const pool = await inProcessPool(createSharedSession(pglite));
  return {
    kind: 'pglite',
    pool,
    location: options.dataDir,
    connectionString: undefined,
    close: async () => {
      await pool.end();
      await pglite.close();
    },
  };
};
