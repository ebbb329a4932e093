import type { Logger } from '../services/runtime/logger.js';
import type { RunnerWorker } from './runner-types.js';
import { nextStatus, type StatusEvent } from './status.js';
import type { ProjectionStatus } from './types.js';

/** The runner's view of its workers' statuses: updates, logs them and wakes who waits. */
export interface StatusBoard {
  readonly update: (worker: RunnerWorker, event: StatusEvent) => void;
  /** Resolves with the first status of `worker` that satisfies `predicate`. */
  readonly waitFor: (
    worker: RunnerWorker,
    predicate: (status: ProjectionStatus) => boolean,
    timeoutMs: number,
  ) => Promise<ProjectionStatus>;
}

export const now = (): string => new Date().toISOString();

// A hook runs after a commit: its failure must not look like the handler's.
export const guarded = (logger: Logger, hook: string, call: () => void): void => {
  try {
    call();
  } catch (error) {
    logger.error({ err: error, hook }, 'projection runner hook failed');
  }
};

export const createStatusBoard = (
  logger: Logger,
  onStatus: ((status: ProjectionStatus) => void) | undefined,
): StatusBoard => {
  const listeners = new Set<() => void>();

  const update = (worker: RunnerWorker, event: StatusEvent): void => {
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
      guarded(logger, 'onStatus', () => onStatus?.(status));
    }
    for (const listener of listeners) listener();
  };

  const waitFor: StatusBoard['waitFor'] = (worker, predicate, timeoutMs) =>
    new Promise<ProjectionStatus>((resolve, reject) => {
      const check = (): void => {
        if (!predicate(worker.status)) return;
        finish();
        resolve(worker.status);
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `projection "${worker.projection.name}" did not reach the expected status within ${timeoutMs} ms (now ${JSON.stringify(worker.status)})`,
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

  return { update, waitFor };
};
