import type { EventStore, RecordedEvent } from './types.js';

const PAGE = 1000;

/** Every event of a stream, in order, read page by page (a read returns one page at most). */
export const readWholeStream = async (
  eventStore: EventStore,
  streamId: string,
): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await eventStore.readStream(streamId, {
      fromRevision: BigInt(events.length),
      maxCount: PAGE,
    });
    events.push(...page);
    if (page.length < PAGE) return events;
  }
};
