import type { Database } from '../services/database/database.js';
import type { EventStore } from '../services/event-store/types.js';
import type { Logger } from '../services/runtime/logger.js';
import type { ChangeNotice } from './change-payload.js';
import type { Projection, ProjectionStatus } from './types.js';
import type { CommittedBatch } from './worker.js';

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

/** One projection's place in the runner: its status and its running worker, if any. */
export interface RunnerWorker {
  readonly projection: Projection;
  status: ProjectionStatus;
  controller: AbortController | undefined;
  done: Promise<void> | undefined;
}
