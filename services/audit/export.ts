import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { logLinkHash } from './log-chain.js';

/**
 * `cogitave events export`: the whole log as JSON Lines, one event per line in log order,
 * with everything an auditor needs to check it with their own code (see README.md):
 *
 *   {"sequence":0,"position":"…","streamId":"…","revision":0,"id":"…","type":"…",
 *    "content":"<the stored canonical JSON, as a string>","prevHash":null,"hash":"…",
 *    "logHash":"…"}
 *
 * `content` is the stored text itself, so its UTF-8 bytes are exactly what `hash` covers;
 * `logHash` is the global chain's link, recomputed here from the log (compare the last one
 * with a digest's `root`).
 */
export interface ExportedEvent {
  readonly sequence: number;
  readonly position: Position;
  readonly streamId: string;
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  readonly content: string;
  readonly prevHash: string | null;
  readonly hash: string;
  readonly logHash: string;
}

export const exportedEvent = (
  event: RecordedEvent,
  sequence: number,
  logHash: string,
): ExportedEvent => ({
  sequence,
  position: event.position,
  streamId: event.streamId,
  revision: Number(event.revision),
  id: event.id,
  type: event.type,
  content: event.content,
  prevHash: event.prevHash,
  hash: event.hash,
  logHash,
});

export interface ExportOptions {
  readonly eventStore: EventStore;
  /** Receives each line (with its newline); awaited, so a slow writer applies back-pressure. */
  readonly write: (line: string) => Promise<void> | void;
  readonly pageSize?: number;
  readonly signal?: AbortSignal;
}

export interface ExportSummary {
  readonly events: number;
  readonly position: Position | null;
  readonly logHash: string | null;
}

export const exportLog = async (options: ExportOptions): Promise<ExportSummary> => {
  let sequence = 0;
  let logHash: string | null = null;
  let fromPosition: Position | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await options.eventStore.readAll({
      fromPosition,
      maxCount: options.pageSize ?? 5000,
    });
    for (const event of page) {
      logHash = logLinkHash(logHash, BigInt(sequence), event.hash);
      await options.write(`${JSON.stringify(exportedEvent(event, sequence, logHash))}\n`);
      sequence += 1;
    }
    const last = page.at(-1);
    if (!last) return { events: sequence, position: fromPosition ?? null, logHash };
    fromPosition = last.position;
  }
};
