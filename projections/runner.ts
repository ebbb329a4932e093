import type { MigrationSet } from '../services/database/migrate.js';
import { InvalidArgument, NotFound } from '../services/runtime/errors.js';
import { assertProjectionName, assertSchemaName } from './apply-batch.js';
import { projectionMigrations } from './checkpoints.js';
import { createLeaseManager } from './leases.js';
import { createProjectionMetrics } from './metrics.js';
import { renderPrometheus } from './prometheus.js';
import { createLagProbe, launchWorker, type RunnerContext } from './runner-launch.js';
import { createStatusBoard, now } from './runner-status.js';
import type { ProjectionRunner, ProjectionRunnerOptions, RunnerWorker } from './runner-types.js';
import { initialStatus } from './status.js';
import { READ_MODEL_SCHEMA, type Projection } from './types.js';

export type { ProjectionRunner, ProjectionRunnerOptions } from './runner-types.js';

// The runner's parts live beside it: runner-types.ts (its options and interface),
// runner-status.ts (statuses, their log lines and who waits for them) and runner-launch.ts
// (starting a worker, probing lag).

/** The migration sets the runner and these projections need, in order. */
export const projectionMigrationSets = (projections: readonly Projection[]): MigrationSet[] => [
  projectionMigrations,
  ...projections.map((projection) => projection.migrations),
];

/** Every projection checked and named once; the names are unique. */
const assertRegistrations = (projections: readonly Projection[]): void => {
  const names = new Set<string>();
  for (const projection of projections) {
    assertProjectionName(projection.name);
    if (names.has(projection.name)) {
      throw new InvalidArgument(`projection "${projection.name}" is registered twice`);
    }
    names.add(projection.name);
  }
};

export const createProjectionRunner = (options: ProjectionRunnerOptions): ProjectionRunner => {
  const { database, eventStore, logger } = options;
  const schema = options.schema ?? READ_MODEL_SCHEMA;
  assertSchemaName(schema);
  assertRegistrations(options.projections);
  const live = schema === READ_MODEL_SCHEMA;
  const context: RunnerContext = {
    options,
    database,
    eventStore,
    logger,
    schema,
    live,
    notify: live && database.kind === 'postgres',
    leases: createLeaseManager({
      database,
      logger,
      ...(options.lockPollIntervalMs === undefined
        ? {}
        : { pollIntervalMs: options.lockPollIntervalMs }),
      ...(options.lockHeartbeatMs === undefined ? {} : { heartbeatMs: options.lockHeartbeatMs }),
    }),
    metrics: createProjectionMetrics(),
    board: createStatusBoard(logger, options.onStatus),
  };
  const { leases, metrics, board } = context;
  const workers = new Map<string, RunnerWorker>(
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
  const probe = createLagProbe(context, [...workers.values()], () => stopping);

  const workerOf = (name: string): RunnerWorker => {
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
      for (const worker of workers.values()) launchWorker(context, worker);
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
      board.update(worker, { type: 'restarted' });
      logger.info({ projection: name }, 'projection restarted');
      launchWorker(context, worker);
      return true;
    },

    waitFor: (name, predicate, timeoutMs) => board.waitFor(workerOf(name), predicate, timeoutMs),

    renderPrometheus: () =>
      renderPrometheus(metrics.families([...workers.values()].map((w) => w.status))),

    stop: async () => {
      if (stopping) return;
      stopping = true;
      clearInterval(probeTimer);
      for (const worker of workers.values()) worker.controller?.abort(new Error('runner stopped'));
      await Promise.all([...workers.values()].flatMap((worker) => worker.done ?? []));
      await leases.close();
      for (const worker of workers.values()) board.update(worker, { type: 'closed' });
    },
  };
};
