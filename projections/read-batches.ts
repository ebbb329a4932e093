import type {
  EventFilter,
  EventStore,
  Position,
  RecordedEvent,
} from '../services/event-store/types.js';

/** The most events the event store serves per read (`readAll`'s `maxCount` limit). */
const PAGE_SIZE = 10_000;

export interface ReadBatchesOptions {
  readonly eventStore: EventStore;
  readonly filter: EventFilter;
  /** Read after this position; null from the start of the log. */
  readonly from: Position | null;
  /** Events up to and including this position only. */
  readonly until?: Position | undefined;
  readonly batchSize: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * The log after `from` in batches of `batchSize` events (pages of at most PAGE_SIZE), up to
 * its visible end or `until`. The next batch is read while the caller works on the current
 * one, so reading (another connection, the database's time) costs no time beside the work.
 */
export async function* readBatches(options: ReadBatchesOptions): AsyncGenerator<RecordedEvent[]> {
  const { eventStore, filter, until, batchSize, signal } = options;
  let readFrom = options.from;
  let exhausted = false;
  const readBatch = async (): Promise<RecordedEvent[]> => {
    const batch: RecordedEvent[] = [];
    while (!exhausted && batch.length < batchSize) {
      signal?.throwIfAborted();
      const maxCount = Math.min(batchSize - batch.length, PAGE_SIZE);
      const page = await eventStore.readAll({
        ...(readFrom === null ? {} : { fromPosition: readFrom }),
        maxCount,
        filter,
      });
      readFrom = page.at(-1)?.position ?? readFrom;
      const kept = until === undefined ? page : page.filter((event) => event.position <= until);
      if (kept.length < page.length || page.length < maxCount) exhausted = true;
      for (const event of kept) batch.push(event);
    }
    return batch;
  };
  const readAhead = (): Promise<RecordedEvent[]> | undefined => {
    if (exhausted) return undefined;
    const read = readBatch();
    // Handled here too, so a read left behind by a failed batch is no unhandled rejection.
    read.catch(() => undefined);
    return read;
  };
  let next = readAhead();
  while (next) {
    const batch = await next;
    next = readAhead();
    if (batch.length > 0) yield batch;
  }
}
