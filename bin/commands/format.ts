import type { RecordedEvent } from '../../services/event-store/types.js';

/**
 * One JSON object per line; revisions are strings because JSON has no 64-bit integers. The
 * line carries the stored content too, so its hash chain can be checked from the output.
 */
export const eventAsJsonLine = (event: RecordedEvent): string =>
  JSON.stringify({ ...event, revision: event.revision.toString() });

/** A line a person can scan: where, when, what, who, then the data. */
export const eventAsText = (event: RecordedEvent): string =>
  [
    event.position,
    `${event.streamId}@${event.revision}`,
    event.metadata.at,
    event.type,
    `actor=${event.metadata.actor}`,
    JSON.stringify(event.data),
  ].join('  ');

export const writeEvent = (event: RecordedEvent, json: boolean): void => {
  process.stdout.write(`${json ? eventAsJsonLine(event) : eventAsText(event)}\n`);
};
