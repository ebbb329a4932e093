import type { Database } from '../services/database/database.js';
import type { MigrationSet } from '../services/database/migrate.js';
import type { EventStore } from '../services/event-store/types.js';
import { InvalidArgument, NotFound } from '../services/runtime/errors.js';
import type { Logger } from '../services/runtime/logger.js';
import { assertProjectionName, assertSchemaName } from './apply-batch.js';
import type { ChangeNotice } from './change-payload.js';
import { projectionMigrations } from './checkpoints.js';
import { probeLag } from './lag.js';
import { createLeaseManager } from './leases.js';
import { createProjectionMetrics } from './metrics.js';
import { renderPrometheus } from './prometheus.js';
import { initialStatus, nextStatus, type StatusEvent } from './status.js';
import { READ_MODEL_SCHEMA, type Projection, type ProjectionStatus } from './types.js';
import { runWorker, type CommittedBatch } from './worker.js';

export interface ProjectionRunnerOptions {
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  readonly projections: readonly Projection[];
  /** Target schema (default `read_model`); change notices are sent only for it. */
  readonly schema?: string;
  /** Most events per batch (default 500). */
  readonly batchSize?: number;
  /** Wait for more events before cutting a non-empty batch (default 0: one event-loop turn). */
  readonly lingerMs?: number;
  /** How often a standby tries to take a projection's lock (default 1000 ms). */
  readonly lockPollIntervalMs?: number;
  /** How often the lock connection is checked while holding locks (default 10,000 ms). */
  readonly lockHeartbeatMs?: number;
  /** How often lag is measured (default 5000 ms; 0 disables the probe). */
  readonly lagProbeIntervalMs?: number;
  /** Backlog counted at most by the lag probe (default 1000 events). */
  readonly lagCap?: number;
  /** First back-off after a transient failure (default 250 ms, doubling to 30 s). */
  readonly retryDelayMs?: number;
  /**
   * In-process delivery of change notices. Used on PGlite, which has no second session to
   * LISTEN on; on server Postgres notices travel by NOTIFY and this is not called.
   */
  readonly changeSink?: { publishLocal(notice: ChangeNotice): void };
  /** Called after every committed batch (progress bars, tests). */
  readonly onBatch?: (batch: Omit<CommittedBatch, 'applied'>) => void;
  /** Called on every state change of a projection. */
  readonly onStatus?: (status: ProjectionStatus) => void;
}

export interface ProjectionRunner {
  /** Starts every projection (each competes for its lock). Idempotent. */
  start(): void;
  status(): ProjectionStatus[];
  /** Resumes a `stopped` projection from its checkpoint; false when it was not stopped. */
  restart(name: string): boolean;
  /** Resolves with the first status of `name` that satisfies `predicate`. */
  waitFor(
    name: string,
    predicate: (status: ProjectionStatus) => boolean,
    timeoutMs: number,
  ): Promise<ProjectionStatus>;
  /** Metrics of every projection in the Prometheus text format. */
  renderPrometheus(): string;
  /** Graceful stop: the batch in flight commits, locks are released, nothing else starts. */
  stop(): Promise<void>;
}

/** The migration sets the runner and these projections need, in order. */
export const projectionMigrationSets = (projections: readonly Projection[]): MigrationSet[] => [
  projectionMigrations,
  ...projections.map((projection) => projection.migrations),
];

interface Worker {
  readonly projection: Projection;
  status: ProjectionStatus;
  controller: AbortController | undefined;
  done: Promise<void> | undefined;
}

export const createProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner => {
  const { database, eventStore, logger } = options;
  const schema = options.schema ?? READ_MODEL_SCHEMA;
  assertSchemaName(schema);
  const names = new Set<string>();
  for (const projection of options.projections) {
    assertProjectionName(projection.name);
    if (names.has(projection.name)) {
      throw new InvalidArgument(`projection "${projection.name}" is registered twice`);
    }
    names.add(projection.name);
  }
  const live = schema === READ_MODEL_SCHEMA;
  const notify = live && database.kind === 'postgres';
  const leases = createLeaseManager({
    database,
    logger,
    ...(options.lockPollIntervalMs === undefined
      ? {}
      : { pollIntervalMs: options.lockPollIntervalMs }),
    ...(options.lockHeartbeatMs === undefined ? {} : { heartbeatMs: options.lockHeartbeatMs }),
  });
  const metrics = createProjectionMetrics();
  const listeners = new Set<() => void>();
  const now = (): string => new Date().toISOString();
  const workers = new Map<string, Worker>(
    options.projections.map((projection) => [
      projection.name,
      {
        projection,
        status: initialStatus(projection.name, now()),
        controller: undefined,
        done: undefined,
      },
    ]),
  );
  let started = false;
  let stopping = false;
  let probeTimer: NodeJS.Timeout | undefined;
  let probing = false;

  // A hook runs after a commit: its failure must not look like the handler's.
  const guarded = (hook: string, call: () => void): void => {
    try {
      call();
    } catch (error) {
      logger.error({ err: error, hook }, 'projection runner hook failed');
    }
  };

  const update = (worker: Worker, event: StatusEvent): void => {
    const before = worker.status;
    worker.status = nextStatus(before, event, now());
    if (worker.status === before) return;
    if (worker.status.state !== before.state) {
      // Moving between running and caught_up is routine under load; the rest is news.
      const routine = [before.state, worker.status.state].every(
        (state) => state === 'running' || state === 'caught_up',
      );
      logger[routine ? 'debug' : 'info'](
        {
          projection: worker.projection.name,
          state: worker.status.state,
          position: worker.status.position,
        },
        'projection state changed',
      );
      const status = worker.status;
      guarded('onStatus', () => options.onStatus?.(status));
    }
    for (const listener of listeners) listener();
  };

  const launch = (worker: Worker): void => {
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
          update(worker, event);
        },
        committed: (batch) => {
          metrics.batchCommitted(batch.projection, batch.events, batch.seconds);
          if (live && database.kind === 'pglite') {
            guarded('changeSink', () => options.changeSink?.publishLocal(batch.applied.notice));
          }
          guarded('onBatch', () =>
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

  const probe = async (): Promise<void> => {
    if (probing) return;
    probing = true;
    try {
      for (const worker of workers.values()) {
        if (stopping) return;
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
          update(worker, { type: 'lag_probed', ...sample });
        } catch (error) {
          logger.debug({ err: error, projection: worker.projection.name }, 'lag probe failed');
        }
      }
    } finally {
      probing = false;
    }
  };

  const workerOf = (name: string): Worker => {
    const worker = workers.get(name);
    if (!worker)
      throw new NotFound(
        `no projection named "${name}" (known: ${[...workers.keys()].join(', ')})`,
      );
    return worker;
  };

  return {
    start: () => {
      if (started || stopping) return;
      started = true;
      for (const worker of workers.values()) launch(worker);
      const interval = options.lagProbeIntervalMs ?? 5000;
      if (interval > 0) {
        void probe();
        probeTimer = setInterval(() => {
          void probe();
        }, interval);
        probeTimer.unref();
      }
    },

    status: () => [...workers.values()].map((worker) => worker.status),

    restart: (name) => {
      const worker = workerOf(name);
      if (stopping || worker.status.state !== 'stopped') return false;
      update(worker, { type: 'restarted' });
      logger.info({ projection: name }, 'projection restarted');
      launch(worker);
      return true;
    },

    waitFor: (name, predicate, timeoutMs) => {
      const worker = workerOf(name);
      return new Promise<ProjectionStatus>((resolve, reject) => {
        const check = (): void => {
          if (!predicate(worker.status)) return;
          finish();
          resolve(worker.status);
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `projection "${name}" did not reach the expected status within ${timeoutMs} ms (now ${JSON.stringify(worker.status)})`,
            ),
          );
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },

    renderPrometheus: () =>
      renderPrometheus(metrics.families([...workers.values()].map((w) => w.status))),

    stop: async () => {
      if (stopping) return;
      stopping = true;
      clearInterval(probeTimer);
      for (const worker of workers.values()) worker.controller?.abort(new Error('runner stopped'));
      await Promise.all([...workers.values()].flatMap((worker) => worker.done ?? []));
      await leases.close();
      for (const worker of workers.values()) update(worker, { type: 'closed' });
    },
  };
};
