import type { Database } from '../services/database/database.js';
import type { EventStore } from '../services/event-store/types.js';
import type { Logger } from '../services/runtime/logger.js';
import { probeLag } from './lag.js';
import type { LeaseManager } from './leases.js';
import type { ProjectionMetrics } from './metrics.js';
import type { ProjectionRunnerOptions, RunnerWorker } from './runner-types.js';
import { guarded, type StatusBoard } from './runner-status.js';
import { runWorker } from './worker.js';

/** What every worker of one runner shares. */
export interface RunnerContext {
  readonly options: ProjectionRunnerOptions;
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly schema: string;
  /** The target is the live read model (not a shadow schema): change notices are sent. */
  readonly live: boolean;
  /** Change notices travel by NOTIFY (server Postgres). */
  readonly notify: boolean;
  readonly leases: LeaseManager;
  readonly metrics: ProjectionMetrics;
  readonly board: StatusBoard;
}

/** Starts `worker`'s loop; it runs until its controller aborts. */
export const launchWorker = (context: RunnerContext, worker: RunnerWorker): void => {
  const { options, database, eventStore, logger, schema, notify, leases, metrics, board, live } =
    context;
  const controller = new AbortController();
  worker.controller = controller;
  worker.done = runWorker(
    {
      projection: worker.projection,
      pool: database.pool,
      eventStore,
      leases,
      logger,
      schema,
      notify,
      batchSize: options.batchSize ?? 500,
      lingerMs: options.lingerMs ?? 0,
      retryDelayMs: options.retryDelayMs ?? 250,
      update: (event) => {
        board.update(worker, event);
      },
      committed: (batch) => {
        metrics.batchCommitted(batch.projection, batch.events, batch.seconds);
        if (live && database.kind === 'pglite') {
          guarded(logger, 'changeSink', () =>
            options.changeSink?.publishLocal(batch.applied.notice),
          );
        }
        guarded(logger, 'onBatch', () =>
          options.onBatch?.({
            projection: batch.projection,
            events: batch.events,
            position: batch.position,
            full: batch.full,
            seconds: batch.seconds,
          }),
        );
      },
      failed: () => {
        metrics.failed(worker.projection.name);
      },
    },
    controller.signal,
  ).catch((error: unknown) => {
    // runWorker handles its errors; anything here is a bug, and must not end the process.
    logger.error({ err: error, projection: worker.projection.name }, 'projection worker crashed');
  });
};

/** Measures every projection's lag once; a probe already under way makes this a no-op. */
export const createLagProbe = (
  context: RunnerContext,
  workers: readonly RunnerWorker[],
  stopping: () => boolean,
): (() => Promise<void>) => {
  const { options, database, eventStore, logger, schema, board } = context;
  let probing = false;
  return async () => {
    if (probing) return;
    probing = true;
    try {
      for (const worker of workers) {
        if (stopping()) return;
        try {
          const sample = await probeLag({
            pool: database.pool,
            eventStore,
            projection: worker.projection,
            schema,
            // readAll serves at most 10,000 events a call.
            cap: Math.min(options.lagCap ?? 1000, 10_000),
            now: new Date(),
          });
          board.update(worker, { type: 'lag_probed', ...sample });
        } catch (error) {
          logger.debug({ err: error, projection: worker.projection.name }, 'lag probe failed');
        }
      }
    } finally {
      probing = false;
    }
  };
};
