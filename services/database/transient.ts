import { Unavailable } from '../runtime/errors.js';

// Connection-level failures worth retrying: the server is restarting, unreachable or shedding
// load. Anything else (bad SQL, constraint violations) is a bug and must surface.
const TRANSIENT_SQLSTATE = /^(08|57P0[1-3]|53300|40001|40P01)/;
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TRANSIENT_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end|Client was closed and is not queryable/i;

export const isTransientDatabaseError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_NODE_CODES.has(code)))
    return true;
  return TRANSIENT_MESSAGES.test(error.message);
};

/** Maps connection failures to `Unavailable`; leaves everything else as it is. */
export const mapDatabaseError = (error: unknown): unknown =>
  isTransientDatabaseError(error)
    ? new Unavailable(
        `The database is unavailable (${(error as Error).message}); retry shortly.`,
        {},
        { cause: error },
      )
    : error;
