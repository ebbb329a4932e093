import { parentPort, workerData } from 'node:worker_threads';
import type { Position, StreamPartition } from '../services/event-store/types.js';
import type { Projection } from './types.js';
import { loadBulk } from './bulk-replay.js';
import { withWorkerStore } from './worker-store.js';

/**
 * A worker thread of a parallel bulk rebuild (`loadInWorkers`): its own connections, its own
 * Postgres event store, one partition of the streams folded and copied in one transaction.
 * The composition root of the thread.
 */
export interface BulkWorkerData {
  readonly connectionString: string;
  readonly projection: string;
  /** The module that exports the projection (`Projection.moduleUrl`). */
  readonly moduleUrl: string;
  readonly schema: string;
  readonly partition: StreamPartition;
  readonly until: Position;
}

export type BulkWorkerMessage =
  | { readonly kind: 'batch'; readonly events: number; readonly position: Position }
  | { readonly kind: 'done'; readonly events: number; readonly position: Position | null };

const run = async (data: BulkWorkerData): Promise<void> => {
  const port = parentPort;
  if (!port) throw new Error('bulk-worker runs as a worker thread');
  const exported = (await import(data.moduleUrl)) as Record<string, unknown>;
  const projection = Object.values(exported).find(
    (value): value is Projection =>
      typeof value === 'object' && value !== null && (value as Projection).name === data.projection,
  );
  if (!projection) throw new Error(`${data.moduleUrl} exports no projection "${data.projection}"`);
  await withWorkerStore(data.connectionString, async ({ database, eventStore }) => {
    const loaded = await loadBulk({
      pool: database.pool,
      eventStore,
      projection,
      schema: data.schema,
      partition: data.partition,
      until: data.until,
      onBatch: (events, position) => {
        port.postMessage({ kind: 'batch', events, position } satisfies BulkWorkerMessage);
      },
    });
    port.postMessage({ kind: 'done', ...loaded } satisfies BulkWorkerMessage);
  });
};

await run(workerData as BulkWorkerData);
