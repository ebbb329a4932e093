import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../services/threads/module-worker.js';
import type { EventStore, Position } from '../services/event-store/types.js';
import type { Loaded, ParallelRebuild } from './bulk-replay.js';
import type { BulkWorkerData, BulkWorkerMessage } from './bulk-worker.js';
import type { Projection } from './types.js';

export interface WorkersOptions {
  readonly eventStore: EventStore;
  readonly projection: Projection;
  readonly schema: string;
  readonly until?: Position | undefined;
  readonly parallel: ParallelRebuild;
  readonly workers: number;
  readonly signal?: AbortSignal | undefined;
  readonly onBatch: (events: number, position: Position) => void;
}

/**
 * Young generation of a worker (V8's default is 16 MB semi-spaces, ~48 MB). A worker
 * allocates a few hundred bytes per event that die within a batch or two; with the default,
 * batches outlive the nursery, get copied to the old generation and are collected there.
 * Measured on a million events, 2 workers: 15.5 CPU-s and 73k events/s at the default,
 * 12.0–12.8 CPU-s and 84–88k events/s at 192 MB; 384 and 768 MB gained nothing more.
 */
export const YOUNG_GENERATION_MB = 192;

/** The newest event of the projection's filter that readers can see now; null: none. */
const visibleEnd = async (
  eventStore: EventStore,
  projection: Projection,
): Promise<Position | null> => {
  const [last] = await eventStore.readAll({
    direction: 'backwards',
    maxCount: 1,
    filter: projection.filter,
  });
  return last?.position ?? null;
};

/**
 * The bulk load split by stream partition over `workers` threads (see `bulk-worker.ts`), each
 * folding and copying its partition in its own transaction. All read up to one end, fixed
 * before they start (the `until` asked for, or the log's visible end), so together they fold
 * exactly the events up to it. The first failure stops the others and is thrown.
 */
export const loadInWorkers = async (options: WorkersOptions): Promise<Loaded> => {
  const until = options.until ?? (await visibleEnd(options.eventStore, options.projection));
  if (until === null) return { position: null, events: 0 };
  const { moduleUrl } = options.projection;
  if (moduleUrl === undefined) {
    throw new Error(`projection "${options.projection.name}" has no moduleUrl to load in a worker`);
  }
  const threads: Worker[] = [];
  const stopAll = (): void => {
    for (const thread of threads) void thread.terminate();
  };
  try {
    for (let index = 0; index < options.workers; index += 1) {
      threads.push(
        startModuleWorker(
          import.meta.url,
          'bulk-worker',
          {
            connectionString: options.parallel.connectionString,
            projection: options.projection.name,
            moduleUrl,
            schema: options.schema,
            partition: { count: options.workers, index },
            until,
          } satisfies BulkWorkerData,
          { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } },
        ),
      );
    }
  } catch (error) {
    // Those already started must not go on loading without the others.
    stopAll();
    throw error;
  }
  const onAbort = (): void => {
    stopAll();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const results = await Promise.all(
      threads.map(
        (thread) =>
          new Promise<Loaded>((resolve, reject) => {
            let result: Loaded | undefined;
            thread.on('message', (message: BulkWorkerMessage) => {
              if (message.kind === 'batch') options.onBatch(message.events, message.position);
              else result = { position: message.position, events: message.events };
            });
            thread.once('error', (error) => {
              stopAll();
              reject(error);
            });
            thread.once('exit', (code) => {
              if (result) resolve(result);
              else if (options.signal?.aborted) reject(options.signal.reason as Error);
              else
                reject(
                  new Error(
                    `a rebuild worker of ${options.projection.name} stopped (exit code ${code}) before it finished`,
                  ),
                );
            });
          }),
      ),
    );
    let position: Position | null = null;
    let events = 0;
    for (const result of results) {
      events += result.events;
      if (result.position !== null && (position === null || result.position > position)) {
        position = result.position;
      }
    }
    return { position, events };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
};
