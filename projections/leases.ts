import pg from 'pg';
import type { Database } from '../services/database/database.js';
import type { Logger } from '../services/runtime/logger.js';

/**
 * Who applies a projection: the holder of a Postgres session-level advisory lock per
 * projection, all held on one dedicated connection of the runner. When the holding process
 * dies its session ends, Postgres releases the locks, and a waiting runner (polling with
 * `pg_try_advisory_lock`) takes over. If this runner's lock connection fails, every lease it
 * held is lost at once: the runner stops applying and competes again after reconnecting.
 *
 * The lock is for leadership, not for correctness: batches also compare-and-set the
 * checkpoint, so even two appliers that overlap (a lock lost but not yet noticed) never apply
 * an event twice.
 *
 * PGlite is one session in one process: its leases are granted at once and never lost.
 */
export interface Lease {
  /** Aborted when the lock is lost (connection failure) or released. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface LeaseManager {
  /** Resolves once the lock is held; rejects with the signal's reason when aborted first. */
  acquire(key: string, signal: AbortSignal, onWaiting?: () => void): Promise<Lease>;
  close(): Promise<void>;
}

export interface LeaseOptions {
  readonly database: Database;
  readonly logger: Logger;
  /** How often a standby tries the lock (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** How often a held lock's connection is checked (default 10,000 ms). */
  readonly heartbeatMs?: number;
}

/** Namespace of the two-int4 advisory-lock space ('cogp'); other locks use the bigint space. */
const LOCK_CLASS = 0x636f_6770;
export const LOCK_APPLICATION_NAME = 'cogitave-projector-lock';

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error
    ? signal.reason
    : new Error('aborted while waiting for the projection lock');

export const createLeaseManager = (options: LeaseOptions): LeaseManager =>
  options.database.kind === 'postgres' && options.database.connectionString
    ? createPostgresLeases({ ...options, connectionString: options.database.connectionString })
    : createLocalLeases();

const createLocalLeases = (): LeaseManager => ({
  acquire: (_key, signal) => {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const controller = new AbortController();
    return Promise.resolve({
      lost: controller.signal,
      release: () => {
        controller.abort(new Error('released'));
        return Promise.resolve();
      },
    });
  },
  close: () => Promise.resolve(),
});

interface Session {
  readonly client: pg.Client;
  /** Aborted when this connection fails: every lease taken on it is lost. */
  readonly controller: AbortController;
  readonly ready: Promise<void>;
  /**
   * Queries on this connection, one at a time: the heartbeat, lock and unlock calls come from
   * timers and loops that do not wait for each other, and pg must not queue them itself.
   */
  readonly query: <R extends pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ) => Promise<pg.QueryResult<R>>;
}

const createPostgresLeases = (
  options: LeaseOptions & { readonly connectionString: string },
): LeaseManager => {
  const { logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  let session: Session | undefined;
  let closed = false;
  let failures = 0;
  const held = new Map<string, AbortController>();
  let heartbeat: NodeJS.Timeout | undefined;

  const drop = (current: Session, error: unknown): void => {
    if (session !== current) return;
    session = undefined;
    failures += 1;
    if (!closed)
      logger.warn({ err: error, leases: [...held.keys()] }, 'projection lock connection lost');
    current.controller.abort(new Error('projection lock connection lost', { cause: error }));
    current.client.removeAllListeners();
    current.client.on('error', () => undefined);
    void current.client.end().catch(() => undefined);
  };

  const connect = (): Session => {
    if (session) return session;
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: LOCK_APPLICATION_NAME,
      keepAlive: true,
    });
    const controller = new AbortController();
    let tail: Promise<unknown> = Promise.resolve();
    const current: Session = {
      client,
      controller,
      ready: client.connect().then(() => {
        failures = 0;
      }),
      query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
        const next = tail.then(() => client.query<R>(text, values));
        tail = next.catch(() => undefined);
        return next;
      },
    };
    session = current;
    client.on('error', (error) => {
      drop(current, error);
    });
    client.on('end', () => {
      drop(current, new Error('connection ended'));
    });
    current.ready.catch((error: unknown) => {
      drop(current, error);
    });
    return current;
  };

  const beat = (): void => {
    const current = session;
    if (!current || held.size === 0) return;
    current.query('SELECT 1').catch((error: unknown) => {
      drop(current, error);
    });
  };

  const tryLock = async (key: string): Promise<Session | undefined> => {
    const current = connect();
    try {
      await current.ready;
      const result = await current.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked',
        [LOCK_CLASS, key],
      );
      return result.rows[0]?.locked === true ? current : undefined;
    } catch (error) {
      drop(current, error);
      return undefined;
    }
  };

  return {
    acquire: async (key, signal, onWaiting) => {
      let announced = false;
      // A function: both flags change while this loop awaits.
      const stopped = (): boolean => signal.aborted || closed;
      for (;;) {
        if (stopped()) throw abortReason(signal);
        const current = await tryLock(key);
        if (current && !current.controller.signal.aborted) {
          if (stopped()) {
            await current
              .query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, key])
              .catch(() => undefined);
            throw abortReason(signal);
          }
          const lease = new AbortController();
          held.set(key, lease);
          if (!heartbeat) {
            heartbeat = setInterval(beat, heartbeatMs);
            heartbeat.unref();
          }
          const forget = (): void => {
            held.delete(key);
            lease.abort(current.controller.signal.reason);
          };
          current.controller.signal.addEventListener('abort', forget, { once: true });
          return {
            lost: lease.signal,
            release: async () => {
              current.controller.signal.removeEventListener('abort', forget);
              if (held.get(key) === lease) held.delete(key);
              lease.abort(new Error('released'));
              if (session === current) {
                await current
                  .query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, key])
                  .catch(() => undefined);
              }
            },
          };
        }
        if (!announced) {
          announced = true;
          onWaiting?.();
        }
        // A failing connection backs off; a lock held elsewhere is polled at the interval.
        const delay =
          failures > 0
            ? Math.min(30_000, pollIntervalMs * 2 ** Math.min(failures, 5))
            : pollIntervalMs;
        await sleep(delay, signal);
      }
    },
    close: async () => {
      closed = true;
      clearInterval(heartbeat);
      const current = session;
      session = undefined;
      for (const lease of held.values()) lease.abort(new Error('closed'));
      held.clear();
      if (current) {
        current.client.removeAllListeners();
        current.client.on('error', () => undefined);
        // Ending the session releases every lock it holds.
        await current.client.end().catch(() => undefined);
      }
    },
  };
};
