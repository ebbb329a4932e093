import { parentPort, workerData } from 'node:worker_threads';
import { BULK_BATCH_SIZE } from '../../projections/bulk-replay.js';
import { readBatches } from '../../projections/read-batches.js';
import { withWorkerStore } from '../../projections/worker-store.js';
import type { EventFilter, Position } from '../../services/event-store/types.js';

/**
 * A worker thread of bench:replay's reading step: one partition of a projection's events read
 * exactly as a rebuild worker reads them (its own connections, `readBatches` with read-ahead,
 * BULK_BATCH_SIZE), and nothing else. Posts the number of events read.
 */
export interface ReadWorkerData {
  readonly connectionString: string;
  readonly filter: EventFilter;
  readonly until: Position;
}

const run = async (data: ReadWorkerData): Promise<void> => {
  const port = parentPort;
  if (!port) throw new Error('replay-read.worker runs as a worker thread');
  await withWorkerStore(data.connectionString, async ({ eventStore }) => {
    let events = 0;
    for await (const batch of readBatches({
      eventStore,
      filter: data.filter,
      from: null,
      until: data.until,
      batchSize: BULK_BATCH_SIZE,
    })) {
      events += batch.length;
    }
    port.postMessage(events);
  });
};

await run(workerData as ReadWorkerData);
