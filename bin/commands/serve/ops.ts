import type { Database } from '../../../services/database/database.js';
import type { Logger } from '../../../services/runtime/logger.js';

// The server ended this session (pg_terminate_backend, a restart): it says nothing yet about
// whether the database answers now.
const STALE_CONNECTION = /Connection terminated|Client has encountered a connection error/i;
const isStaleConnection = (error: unknown): boolean =>
  error instanceof Error &&
  (['57P01', '57P02'].includes(String((error as { code?: unknown }).code)) ||
    STALE_CONNECTION.test(error.message));

/**
 * Whether the database answers. An idle pooled connection the server has just ended fails its
 * next query before the pool notices, so that failure is retried (the pool drops the broken
 * client) and only an answer from a live connection counts.
 */
export const pingDatabase = async (database: Database): Promise<boolean> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await database.pool.query('SELECT 1 AS ok')).rowCount === 1;
    } catch (error) {
      if (attempt >= 10 || !isStaleConnection(error)) throw error;
    }
  }
};

/** True once `ready` has resolved; false if it has not within `timeoutMs` (a probe must answer). */
export const settledWithin = async (
  ready: Promise<unknown>,
  timeoutMs: number,
): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, timeoutMs);
  });
  try {
    return await Promise.race([ready.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
};

export const untilSignal = (logger: Pick<Logger, 'info'>): Promise<void> =>
  new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
