import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Database } from '../../database/database.js';
import type { Logger } from '../../runtime/logger.js';
import { notifyChannel, sendNotify } from './queries.js';

/**
 * Wakes subscribers when new events may be visible.
 *
 * - In this process, an append wakes subscribers directly.
 * - Across processes (server Postgres), appends publish a NOTIFY and one LISTEN connection
 *   per store wakes local subscribers. NOTIFY is sent after the append's commit, coalesced to
 *   at most one in flight: a NOTIFY inside the append transaction would take Postgres' global
 *   notify lock at commit and serialise every writer's commit. Each NOTIFY is a transaction
 *   with a commit flush of its own, so under load they are also spaced out (≤ 1 per
 *   NOTIFY_SPACING_MS): other processes learn of new events within milliseconds either way.
 * - Subscribers also poll, so a lost NOTIFY (reconnect, crashed writer) only delays them.
 */
export interface Wake {
  /** Changes on every wake-up; read it before a query, pass it to `wait` after. */
  readonly generation: number;
  wait(sinceGeneration: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Call after a commit that appended events. */
  appended(): void;
  /** Starts the cross-process listener (idempotent). */
  listen(): void;
  close(): Promise<void>;
}

const NOTIFY_SPACING_MS = 10;

export const createWake = (database: Database, logger: Logger): Wake => {
  let generation = 0;
  /** Tells this store's notifications from those of other processes (and other stores). */
  const sender = randomUUID();
  const waiters = new Set<() => void>();
  let closed = false;

  const bump = (): void => {
    generation += 1;
    for (const resolve of waiters) resolve();
    waiters.clear();
  };

  // Coalesced NOTIFY: while one is in flight, further appends only mark it pending.
  let notifyInFlight: Promise<void> | null = null;
  let notifyPending = false;
  const publish = (): void => {
    if (database.kind !== 'postgres' || closed) return;
    if (notifyInFlight) {
      notifyPending = true;
      return;
    }
    notifyInFlight = sendNotify(database.pool, sender)
      .catch((error: unknown) => {
        logger.debug({ err: error }, 'NOTIFY failed; subscribers will poll');
      })
      .then(() =>
        notifyPending
          ? new Promise<void>((resolve) => setTimeout(resolve, NOTIFY_SPACING_MS))
          : undefined,
      )
      .finally(() => {
        notifyInFlight = null;
        if (notifyPending) {
          notifyPending = false;
          publish();
        }
      });
  };

  // Another process's append through this process's embedded database (its local channel).
  const stopForeign = database.onForeignWrite?.(bump);

  let listener: pg.Client | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let listening = false;
  const connectListener = (attempt: number): void => {
    if (closed || !database.connectionString) return;
    const client = new pg.Client({ connectionString: database.connectionString });
    listener = client;
    const retry = (error: unknown): void => {
      if (closed || listener !== client) return;
      listener = null;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      const delay = Math.min(30_000, 250 * 2 ** attempt);
      logger.warn(
        { err: error, retryInMs: delay },
        'event notification listener lost; polling until it is back',
      );
      retryTimer = setTimeout(() => {
        connectListener(attempt + 1);
      }, delay);
    };
    client.on('error', retry);
    client.on('end', () => {
      retry(new Error('connection ended'));
    });
    // This store's own appends woke its subscribers already (`appended`).
    client.on('notification', (message) => {
      if (message.payload !== sender) bump();
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${notifyChannel}`))
      .then(() => {
        // Anything committed while we were not listening is found by this wake-up.
        bump();
        attempt = 0;
      })
      .catch(retry);
  };

  return {
    get generation() {
      return generation;
    },
    wait: (since, timeoutMs, signal) =>
      new Promise<void>((resolve) => {
        if (since !== generation || closed || signal?.aborted) {
          resolve();
          return;
        }
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal?.addEventListener('abort', done, { once: true });
        waiters.add(done);
      }),
    appended: () => {
      bump();
      publish();
    },
    listen: () => {
      if (listening || database.kind !== 'postgres') return;
      listening = true;
      connectListener(0);
    },
    close: async () => {
      closed = true;
      stopForeign?.();
      clearTimeout(retryTimer);
      bump();
      await notifyInFlight;
      const client = listener;
      listener = null;
      if (client) {
        client.removeAllListeners();
        client.on('error', () => undefined);
        await client.end().catch(() => undefined);
      }
    },
  };
};
