import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { CogitaveError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/logger.js';
import type { Database } from '../database.js';
import { startLocalChannel } from './channel.js';
import { tryLockFolder, type FolderLock } from './folder-lock.js';
import {
  ensurePrivateDirectory,
  isServeRecord,
  privateDirectoryOf,
  readOwnerRecord,
  removeOwnerRecord,
  socketDirectoryFor,
  writeOwnerRecord,
  type OwnerRecord,
} from './owner-record.js';
import { pgliteStart, saveTemplate, useBaselineWasmCompiler } from './pglite-start.js';
import { createSharedSession, inProcessPool } from './shared-session.js';

/**
 * Opening an embedded (PGlite) data folder. Exactly one process ever runs PGlite on a folder:
 * two would each run their own Postgres on the same files and silently lose each other's
 * writes. So a process either
 * - takes the folder's lock and becomes its **owner**: it opens PGlite and serves it to the
 *   other processes over a local channel (a Unix socket in the folder, see channel.ts); or
 * - finds an owner and becomes its **client**: its `pg` pool talks to the owner's database
 *   through the channel, so it sees exactly what the owner sees, and its writes are the
 *   owner's writes.
 * A process that must own the folder (`serve`) waits a bounded time for a command holding it
 * to finish, and refuses, naming it, when another `serve` owns it.
 */
export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly logger: Logger;
  /** Only the owner will do (serve): refuse rather than become a client. */
  readonly mustOwn: boolean;
  /** What this process is, for the owner record and other processes' messages. */
  readonly command: string;
  /** How long to wait for an owner to answer or a holder to let go (default 60 s). */
  readonly waitMs?: number;
}

const POLL_MS = 100;
// How long a closing owner lets its clients finish what they are doing.
const CLOSE_GRACE_MS = 5000;

const describe = (record: OwnerRecord | undefined): string =>
  record
    ? `${record.command} (pid ${String(record.pid)}, since ${record.since})`
    : 'another process that is still starting';

const inUse = (message: string, dataDir: string, record: OwnerRecord | undefined): CogitaveError =>
  new CogitaveError('IN_USE', message, { dataDir, ...(record ? { owner: record } : {}) });

export const openEmbeddedFolder = async (options: EmbeddedOptions): Promise<Database> => {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // The database files are as private as the channel.
  ensurePrivateDirectory(dataDir);
  ensurePrivateDirectory(privateDirectoryOf(dataDir));
  const waitMs = options.waitMs ?? 60_000;
  const started = Date.now();
  let announced = false;
  for (;;) {
    const lock = await tryLockFolder(dataDir, privateDirectoryOf(dataDir));
    if (lock) return openAsOwner(dataDir, lock, options);
    const record = readOwnerRecord(dataDir);
    if (options.mustOwn && isServeRecord(record)) {
      throw inUse(
        `${dataDir} is already served by ${describe(record)}. An embedded database has one owner: stop that one first, or use it as it is (every other cogitave command goes through it).`,
        dataDir,
        record,
      );
    }
    if (!options.mustOwn && record) {
      const client = await connectToOwner(dataDir, record, options.logger);
      if (client) return client;
    }
    const waited = Date.now() - started;
    if (waited >= waitMs) {
      throw inUse(
        options.mustOwn
          ? `${dataDir} is in use by ${describe(record)}; waited ${String(Math.round(waited / 1000))} s for it to finish. Let it finish or stop it, then start again.`
          : `${dataDir} is locked by ${describe(record)}, which did not answer within ${String(Math.round(waited / 1000))} s. If it is stuck, stop it and run the command again.`,
        dataDir,
        record,
      );
    }
    if (!announced && waited >= 1000) {
      announced = true;
      options.logger.warn(
        { dataDir, owner: record },
        options.mustOwn
          ? `waiting for ${describe(record)} to release the embedded database`
          : `waiting for ${describe(record)} to open the embedded database`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};

const openAsOwner = async (
  dataDir: string,
  lock: FolderLock,
  options: EmbeddedOptions,
): Promise<Database> => {
  const { logger } = options;
  const cleanups: (() => Promise<void>)[] = [() => lock.release()];
  const unwind = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    if (!options.mustOwn) useBaselineWasmCompiler();
    // Imported lazily: the WASM build is only loaded when the embedded default is used.
    const { PGlite } = await import('@electric-sql/pglite');
    const start = pgliteStart(dataDir, {
      oneShot: !options.mustOwn,
      startParams: PGlite.defaultStartParams,
    });
    const pglite = await PGlite.create(dataDir, start.options);
    if (start.saveTemplateTo) await saveTemplate(pglite, start.saveTemplateTo, logger);
    cleanups.push(() => pglite.close());
    const session = createSharedSession(pglite, {
      onSlowWait: (report) => {
        logger.warn(report, 'waiting long for the embedded database session');
      },
    });
    const pool = await inProcessPool(session);
    cleanups.push(() => pool.end());
    const channel = await startLocalChannel({
      session,
      directory: socketDirectoryFor(dataDir),
      logger,
    });
    cleanups.push(() => channel.close(CLOSE_GRACE_MS));
    const record: OwnerRecord = {
      pid: process.pid,
      command: options.command,
      since: new Date().toISOString(),
      socketDirectory: channel.directory,
      port: channel.port,
    };
    writeOwnerRecord(dataDir, record);
    cleanups.push(() => {
      removeOwnerRecord(dataDir);
      return Promise.resolve();
    });
    logger.debug(
      { dataDir, lock: lock.mechanism, channel: channel.directory },
      'owning the embedded database',
    );
    return embeddedDatabase(dataDir, pool, { role: 'owner', owner: record }, unwind, {
      onForeignWrite: (listener) => session.onForeignWrite(listener),
    });
  } catch (error) {
    await unwind();
    throw error;
  }
};

/** A pool through the owner's channel, or undefined when it does not answer (yet). */
const connectToOwner = async (
  dataDir: string,
  record: OwnerRecord,
  logger: Logger,
): Promise<Database | undefined> => {
  const pool = new pg.Pool({
    host: record.socketDirectory,
    port: record.port,
    user: 'postgres',
    database: 'postgres',
    // The owner's session is one: a second connection could only queue behind the first.
    max: 1,
    // The owner runs PGlite on its event loop: while it executes a long statement it answers
    // nobody, so a busy owner is waited for rather than taken for a dead one.
    connectionTimeoutMillis: 20_000,
  });
  pool.on('error', (error) => {
    logger.warn({ err: error }, 'connection to the embedded database owner failed');
  });
  try {
    await pool.query('SELECT 1');
  } catch {
    await pool.end().catch(() => undefined);
    return undefined;
  }
  return embeddedDatabase(dataDir, pool, { role: 'client', owner: record }, () => pool.end());
};

const embeddedDatabase = (
  dataDir: string,
  pool: pg.Pool,
  embedded: NonNullable<Database['embedded']>,
  close: () => Promise<void>,
  extra: Pick<Database, 'onForeignWrite'> = {},
): Database => {
  let closed: Promise<void> | undefined;
  return {
    kind: 'pglite',
    pool,
    location: dataDir,
    connectionString: undefined,
    embedded,
    ...extra,
    // Closing twice (a failed start-up, then the caller's own close) closes once.
    close: () => (closed ??= close()),
  };
};
