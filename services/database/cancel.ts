import type pg from 'pg';
import { CogitaveError } from '../runtime/errors.js';

/** Postgres `query_canceled`: a statement timeout or a cancel request ended the statement. */
export const QUERY_CANCELED = '57014';

/** The caller went away (MCP `notifications/cancelled`, a closed stream): nothing to answer. */
export class Cancelled extends CogitaveError {
  constructor(what: string) {
    super('FAILED_PRECONDITION', `${what} was cancelled by the caller`, { cancelled: true });
  }
}

/** The backend pid of a checked-out client (node-postgres keeps it from the startup message). */
const backendPid = (client: pg.PoolClient): number | undefined => {
  const pid = (client as unknown as { processID?: unknown }).processID;
  return typeof pid === 'number' && pid > 0 ? pid : undefined;
};

/**
 * Runs `work` on `client` and, when `signal` aborts while it runs, asks Postgres to cancel the
 * client's running statement (`pg_cancel_backend`, through another pool connection), so the
 * statement stops using the server instead of running to completion for nobody. The work then
 * fails with the cancel error (57014), which the caller reports as `Cancelled` once it sees
 * `signal.aborted`. A session without a backend pid (embedded PGlite runs one statement at a
 * time in-process) is not interrupted; its result is discarded.
 */
export const cancellable = async <T>(
  pool: Pick<pg.Pool, 'query'>,
  client: pg.PoolClient,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> => {
  if (!signal) return work();
  if (signal.aborted) throw new Cancelled('The query');
  const pid = backendPid(client);
  let cancelling: Promise<unknown> | undefined;
  const onAbort = (): void => {
    if (pid === undefined) return;
    cancelling = pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  // Read afresh after each await (the abort arrives meanwhile).
  const aborted = (): boolean => signal.aborted;
  try {
    const result = await work();
    if (aborted()) throw new Cancelled('The query');
    return result;
  } catch (error) {
    if (aborted()) throw new Cancelled('The query');
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
    // A cancel still in flight must not land on the client's next statement after release.
    await cancelling;
  }
};
