import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Resumable SSE for one 2025-11-25 session: the last `capacity` messages sent on its streams,
 * so a client that reconnects with `Last-Event-ID` gets what it missed. Bounded: the oldest
 * messages are dropped first, and a reconnect from a dropped id is refused (the client starts
 * over with a fresh stream).
 */
export class BoundedEventStore implements EventStore {
  readonly #capacity: number;
  readonly #events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  #sequence = 0;

  constructor(capacity = 500) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#events.size;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.#sequence += 1;
    const eventId = `${streamId}|${String(this.#sequence)}`;
    this.#events.set(eventId, { streamId, message });
    // Map iteration order is insertion order: the first key is the oldest.
    while (this.#events.size > this.#capacity) {
      const oldest = this.#events.keys().next().value;
      if (oldest === undefined) break;
      this.#events.delete(oldest);
    }
    return Promise.resolve(eventId);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (!last) throw new Error(`event ${lastEventId} is unknown or no longer retained`);
    let after = false;
    for (const [eventId, event] of [...this.#events]) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }
}
