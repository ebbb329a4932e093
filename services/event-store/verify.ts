import { findChainBreak, type ChainBreak } from './hash-chain.js';
import type { EventStore, Position } from './types.js';

export interface VerifyReport {
  readonly events: number;
  readonly streams: number;
  /** The first broken link in log order, or null when every link holds. */
  readonly broken: ChainBreak | null;
}

export interface VerifyOptions {
  readonly pageSize?: number;
  /** Called after each page with the events checked so far. */
  readonly onProgress?: (checked: number) => void;
  readonly signal?: AbortSignal;
}

/**
 * Walks the whole log once, in order, and checks every stream's hash chain as it goes: each
 * event's revision follows the previous one of its stream, its prevHash is that event's hash,
 * and its hash matches its canonical content. A stream's events appear in the global log in
 * revision order (each append starts after the previous one committed), so one pass suffices
 * and memory grows with the number of streams, not events.
 */
export const verifyLog = async (
  eventStore: EventStore,
  options: VerifyOptions = {},
): Promise<VerifyReport> => {
  const heads = new Map<string, { revision: bigint; hash: string }>();
  let events = 0;
  let fromPosition: Position | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await eventStore.readAll({ fromPosition, maxCount: options.pageSize ?? 1000 });
    for (const event of page) {
      const broken = findChainBreak([event], heads.get(event.streamId) ?? null);
      if (broken) return { events, streams: heads.size, broken };
      heads.set(event.streamId, { revision: event.revision, hash: event.hash });
      events += 1;
    }
    options.onProgress?.(events);
    const last = page.at(-1);
    if (!last) return { events, streams: heads.size, broken: null };
    fromPosition = last.position;
  }
};
