import pg from 'pg';
import type { Logger } from '../runtime/logger.js';
import { sleep } from '../runtime/sleep.js';

/**
 * One reactor at a time across every process on a server Postgres: two reactors would race
 * between look-up and create and could open twins. The leader holds a session advisory lock on
 * a connection of its own; when that connection dies (the process was killed, the network
 * dropped) Postgres releases the lock and a standby takes over.
 */
export interface Lease {
  /** Aborted when the lock's connection is lost. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
}

export interface Leadership {
  /** Resolves once this process holds the lock; rejects when `signal` aborts. */
  acquire(signal: AbortSignal): Promise<Lease>;
}

export interface AdvisoryLeadershipOptions {
  readonly connectionString: string;
  /** A 64-bit key shared by every process running this reactor. */
  readonly key: bigint;
  readonly logger: Logger;
  /** What the leader runs, for the standby's log line (default "the GitHub reactor"). */
  readonly what?: string;
  /** How often a standby tries again (default 5 s). */
  readonly retryMs?: number;
}

export const createAdvisoryLeadership = (options: AdvisoryLeadershipOptions): Leadership => ({
  acquire: async (signal) => {
    let announced = false;
    for (;;) {
      signal.throwIfAborted();
      const client = new pg.Client({ connectionString: options.connectionString });
      const lost = new AbortController();
      client.on('error', (error) => {
        options.logger.warn({ err: error }, 'leader lock connection failed');
        lost.abort(error);
      });
      client.on('end', () => {
        lost.abort(new Error('leader lock connection ended'));
      });
      try {
        await client.connect();
        const result = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock($1) AS locked',
          [options.key.toString()],
        );
        if (result.rows[0]?.locked === true) {
          return {
            lost: lost.signal,
            release: async () => {
              await client
                .query('SELECT pg_advisory_unlock($1)', [options.key.toString()])
                .catch(() => undefined);
              await client.end().catch(() => undefined);
            },
          };
        }
        if (!announced) {
          options.logger.info(
            `another process runs ${options.what ?? 'the GitHub reactor'}; standing by`,
          );
          announced = true;
        }
      } catch (error) {
        options.logger.warn({ err: error }, 'could not try the leader lock');
      }
      await client.end().catch(() => undefined);
      await sleep(options.retryMs ?? 5000, signal);
    }
  },
});
