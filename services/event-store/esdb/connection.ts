import { EventStoreDBClient } from '@eventstore/db-client';
import { CogitaveError } from '../../runtime/errors.js';
import { redactUrl, type Logger } from '../../runtime/logger.js';
import {
  collectRead,
  retryTransient,
  type CancellableRead,
  type RetryPolicy,
} from './resilience.js';

export interface EsdbEventStoreOptions {
  /** esdb://host:2113?tls=false (kurrentdb:// is accepted and read as esdb://). */
  readonly connectionString: string;
  readonly logger?: Logger;
  /**
   * How long an append or a read keeps retrying while EventStoreDB is unavailable (a node
   * restart, a leader election, a dropped connection, a server timeout). Default 15 s.
   */
  readonly retryForMs?: number;
  /** A read that receives nothing for this long is cancelled and retried. Default 10 s. */
  readonly readIdleTimeoutMs?: number;
}

const DEFAULT_RETRY_FOR_MS = 15_000;
/** The client's own default deadline of a call; reads get none from it. */
const DEFAULT_READ_IDLE_TIMEOUT_MS = 10_000;

/** What the adapter's parts share: the client, the logger and how calls are retried. */
export interface EsdbConnection {
  readonly client: EventStoreDBClient;
  readonly logger: Logger | undefined;
  /** Retries `attempt` while EventStoreDB is unavailable, until the policy or close ends it. */
  readonly retrying: <T>(
    what: string,
    context: Record<string, unknown>,
    attempt: () => Promise<T>,
  ) => Promise<T>;
  /** Every item of a read, cancelled and retried when it stays idle too long. */
  readonly collect: <T>(read: CancellableRead<T>) => Promise<T[]>;
  /** Ends every retry now: none outlives the store. */
  readonly stopRetrying: () => void;
}

const connect = (connectionString: string): EventStoreDBClient => {
  try {
    // Client 6.x only parses the esdb schemes; kurrentdb:// is the same protocol renamed.
    return EventStoreDBClient.connectionString(
      connectionString.replace(/^kurrentdb(\+discover)?:/, 'esdb$1:'),
    );
  } catch (error) {
    // The parser's message quotes the string, which may hold a password: report it redacted.
    throw new CogitaveError(
      'CONFIG_INVALID',
      `Invalid EventStoreDB connection string ${redactUrl(connectionString)} (expected esdb://host:2113?tls=false)`,
      {},
      { cause: error },
    );
  }
};

export const openEsdbConnection = (options: EsdbEventStoreOptions): EsdbConnection => {
  const client = connect(options.connectionString);
  const { logger } = options;
  const policy: RetryPolicy = {
    forMs: options.retryForMs ?? DEFAULT_RETRY_FOR_MS,
    firstDelayMs: 100,
    maxDelayMs: 2_000,
  };
  const idleMs = options.readIdleTimeoutMs ?? DEFAULT_READ_IDLE_TIMEOUT_MS;
  // Aborted by stopRetrying() when the store closes: no retry outlives the store.
  const closing = new AbortController();
  const retrying = <T>(what: string, context: Record<string, unknown>, attempt: () => Promise<T>) =>
    retryTransient(policy, attempt, {
      signal: closing.signal,
      onRetry: (error, n, delayMs) => {
        logger?.warn(
          { ...context, err: error, attempt: n, retryInMs: Math.round(delayMs) },
          `esdb ${what} failed; retrying`,
        );
      },
    });
  const collect = <T>(read: CancellableRead<T>): Promise<T[]> => collectRead(read, idleMs);
  return {
    client,
    logger,
    retrying,
    collect,
    stopRetrying: () => {
      closing.abort();
    },
  };
};
