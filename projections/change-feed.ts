import pg from 'pg';
import type { Database } from '../services/database/database.js';
import type { Position } from '../services/event-store/types.js';
import type { Logger } from '../services/runtime/logger.js';
import { CHANGE_CHANNEL, parseChangePayload, type ChangeNotice } from './change-payload.js';
import { readCheckpoint } from './checkpoints.js';
import { READ_MODEL_SCHEMA } from './types.js';

/**
 * What the read side tells the gateway: a committed batch's changes, or `resync` when
 * notices may have been missed (the LISTEN connection was lost and is back), in which case
 * listeners re-list what they show and re-read what they follow.
 */
export type ChangeSignal =
  | { readonly kind: 'change'; readonly notice: ChangeNotice }
  | { readonly kind: 'resync'; readonly reason: string };

export type ChangeListener = (signal: ChangeSignal) => void;

export interface ChangeFeed {
  /** Adds a listener; returns the function that removes it. */
  onChange(listener: ChangeListener): () => void;
  /**
   * Read-your-writes: resolves true once the projection's checkpoint is at or after
   * `position` (the position an append returned, of an event the projection reads), false
   * when `timeoutMs` (default 5000) passes first.
   */
  waitForPosition(
    projection: string,
    position: Position,
    options?: { readonly timeoutMs?: number },
  ): Promise<boolean>;
  /** Resolves once notices are being received (server Postgres: after the first LISTEN). */
  ready(): Promise<void>;
  /** Delivers a notice in this process (the runner's sink on PGlite). */
  publishLocal(notice: ChangeNotice): void;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  readonly database: Database;
  readonly logger: Logger;
  /** First reconnect delay (default 250 ms), doubling up to `maxReconnectDelayMs` (30 s). */
  readonly reconnectDelayMs?: number;
  readonly maxReconnectDelayMs?: number;
  /** How often the LISTEN connection is checked (default 30 s), to notice a dead peer. */
  readonly heartbeatMs?: number;
  /** `waitForPosition` also polls the checkpoint this often (default 1000 ms). */
  readonly waitPollIntervalMs?: number;
}

export const CHANGE_FEED_APPLICATION_NAME = 'cogitave-change-feed';

interface Waiter {
  readonly projection: string;
  readonly position: Position;
  readonly finish: (reached: boolean) => void;
}

export const createChangeFeed = (options: ChangeFeedOptions): ChangeFeed => {
  const { database, logger } = options;
  const listeners = new Set<ChangeListener>();
  const waiters = new Set<Waiter>();
  /** Each projection's newest checkpoint a notice announced: a wait for less returns at once. */
  const announced = new Map<string, Position>();
  let closed = false;

  const emit = (signal: ChangeSignal): void => {
    if (signal.kind === 'change') {
      const { projection, position } = signal.notice;
      const before = announced.get(projection);
      if (before === undefined || before < position) announced.set(projection, position);
    }
    for (const listener of [...listeners]) {
      try {
        listener(signal);
      } catch (error) {
        logger.error({ err: error }, 'change listener failed');
      }
    }
    for (const waiter of [...waiters]) {
      if (signal.kind === 'change') {
        const { notice } = signal;
        if (notice.projection === waiter.projection && notice.position >= waiter.position) {
          waiter.finish(true);
        }
      } else {
        void checkWaiter(waiter);
      }
    }
  };

  const checkWaiter = async (waiter: Waiter): Promise<void> => {
    try {
      const checkpoint = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, waiter.projection);
      if (checkpoint?.position != null && checkpoint.position >= waiter.position)
        waiter.finish(true);
    } catch (error) {
      logger.debug({ err: error }, 'checkpoint read for waitForPosition failed');
    }
  };

  const listener =
    database.kind === 'postgres' && database.connectionString
      ? createListener(database.connectionString, options, emit, () => closed)
      : undefined;

  return {
    onChange: (callback) => {
      listeners.add(callback);
      return () => {
        listeners.delete(callback);
      };
    },
    waitForPosition: (projection, position, waitOptions = {}) =>
      new Promise<boolean>((resolve) => {
        if (closed) {
          resolve(false);
          return;
        }
        const reached = announced.get(projection);
        if (reached !== undefined && reached >= position) {
          resolve(true);
          return;
        }
        const waiter: Waiter = {
          projection,
          position,
          finish: (reached) => {
            clearTimeout(timer);
            clearInterval(poll);
            waiters.delete(waiter);
            resolve(reached);
          },
        };
        const timer = setTimeout(() => {
          waiter.finish(false);
        }, waitOptions.timeoutMs ?? 5000);
        const poll = setInterval(() => {
          void checkWaiter(waiter);
        }, options.waitPollIntervalMs ?? 1000);
        // Registered before the first read, so a notice arriving meanwhile is not missed.
        waiters.add(waiter);
        void checkWaiter(waiter);
      }),
    ready: () => listener?.ready ?? Promise.resolve(),
    publishLocal: (notice) => {
      if (!closed) emit({ kind: 'change', notice });
    },
    close: async () => {
      closed = true;
      for (const waiter of [...waiters]) waiter.finish(false);
      listeners.clear();
      await listener?.close();
    },
  };
};

interface Listener {
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** A dedicated LISTEN connection that reconnects with back-off and signals `resync` when back. */
const createListener = (
  connectionString: string,
  options: ChangeFeedOptions,
  emit: (signal: ChangeSignal) => void,
  isClosed: () => boolean,
): Listener => {
  const { logger } = options;
  const baseDelay = options.reconnectDelayMs ?? 250;
  const maxDelay = options.maxReconnectDelayMs ?? 30_000;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let connectedOnce = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const heartbeat = setInterval(() => {
    const current = client;
    current?.query('SELECT 1').catch((error: unknown) => {
      lost(current, error, 0);
    });
  }, options.heartbeatMs ?? 30_000);
  heartbeat.unref();

  const lost = (current: pg.Client, error: unknown, attempt: number): void => {
    if (client !== current || isClosed()) return;
    client = undefined;
    current.removeAllListeners();
    current.on('error', () => undefined);
    void current.end().catch(() => undefined);
    const delay = Math.min(maxDelay, baseDelay * 2 ** attempt);
    logger.warn({ err: error, retryInMs: delay }, 'change feed connection lost; reconnecting');
    retryTimer = setTimeout(() => {
      connect(attempt + 1);
    }, delay);
  };

  const connect = (attempt: number): void => {
    if (isClosed()) return;
    const current = new pg.Client({
      connectionString,
      application_name: CHANGE_FEED_APPLICATION_NAME,
      keepAlive: true,
    });
    client = current;
    current.on('error', (error) => {
      lost(current, error, attempt);
    });
    current.on('end', () => {
      lost(current, new Error('connection ended'), attempt);
    });
    current.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || message.payload === undefined) return;
      const notice = parseChangePayload(message.payload);
      if (notice) emit({ kind: 'change', notice });
      else
        logger.warn({ payload: message.payload.slice(0, 200) }, 'unreadable change notice ignored');
    });
    current
      .connect()
      .then(() => current.query(`LISTEN ${CHANGE_CHANNEL}`))
      .then(() => {
        if (client !== current) return;
        attempt = 0;
        if (connectedOnce) {
          logger.info('change feed reconnected; listeners resync');
          emit({ kind: 'resync', reason: 'change feed reconnected; notices may have been missed' });
        }
        connectedOnce = true;
        markReady();
      })
      .catch((error: unknown) => {
        lost(current, error, attempt);
      });
  };

  connect(0);

  return {
    ready,
    close: async () => {
      clearInterval(heartbeat);
      clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      markReady();
      if (current) {
        current.removeAllListeners();
        current.on('error', () => undefined);
        await current.end().catch(() => undefined);
      }
    },
  };
};
