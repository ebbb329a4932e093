import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { CogitaveError } from '../runtime/errors.js';
import { NETWORK_EVENT_TYPES, type NetworkEvent } from './events.js';
import { evolve, initialNetworkState, type NetworkState } from './state.js';

/**
 * The folded state of the networks a handler set recently wrote: a cache of their streams,
 * not a source of truth. A network can hold a million events, so folding it per command would
 * cost a read of all of them; the cache is brought up to date by reading only the events after
 * its revision, so writes from other processes are seen.
 */

const PAGE = 10_000;

export interface FoldedNetwork {
  readonly state: NetworkState;
  /** Position of the last event folded; null while the stream does not exist. */
  readonly position: Position | null;
}

const EMPTY = (): FoldedNetwork => ({ state: initialNetworkState(), position: null });

const isNetworkEventType = (type: string): type is NetworkEvent['type'] =>
  (NETWORK_EVENT_TYPES as readonly string[]).includes(type);

/** Stored events are trusted (they were decided); an unknown type means this code is too old. */
export const toNetworkEvent = (event: RecordedEvent): NetworkEvent => {
  if (!isNetworkEventType(event.type)) {
    throw new CogitaveError(
      'INTERNAL',
      `Stream ${event.streamId} holds event type "${event.type}" at revision ${event.revision}, which this version does not know; upgrade before writing to it.`,
      { streamId: event.streamId, type: event.type },
    );
  }
  return { type: event.type, data: event.data } as NetworkEvent;
};

/** The folded states of at most `size` networks, the least recently written dropped first. */
export class NetworkStateCache {
  readonly #folded = new Map<string, FoldedNetwork>();

  constructor(
    private readonly eventStore: EventStore,
    private readonly size: number,
  ) {}

  get(streamId: string): FoldedNetwork | undefined {
    return this.#folded.get(streamId);
  }

  forget(streamId: string): void {
    this.#folded.delete(streamId);
  }

  remember(streamId: string, folded: FoldedNetwork): void {
    this.#folded.delete(streamId);
    this.#folded.set(streamId, folded);
    while (this.#folded.size > this.size) {
      const oldest = this.#folded.keys().next();
      if (oldest.done) break;
      this.#folded.delete(oldest.value);
    }
  }

  /** The cached state brought up to the end of the stream. */
  async catchUp(streamId: string): Promise<FoldedNetwork> {
    let { state, position } = this.#folded.get(streamId) ?? EMPTY();
    for (;;) {
      const from = state.revision === null ? 0n : state.revision + 1n;
      const page = await this.eventStore.readStream(streamId, {
        fromRevision: from,
        maxCount: PAGE,
      });
      for (const recorded of page) {
        if (recorded.revision !== (state.revision === null ? 0n : state.revision + 1n)) {
          // The stream is not what the cache was folded from (e.g. the database was reset).
          this.#folded.delete(streamId);
          throw new CogitaveError(
            'UNAVAILABLE',
            `Network stream ${streamId} changed under its cached state; retry the call.`,
            { streamId },
          );
        }
        state = evolve(state, toNetworkEvent(recorded));
        position = recorded.position;
      }
      if (page.length < PAGE) break;
    }
    const folded = { state, position };
    this.remember(streamId, folded);
    return folded;
  }
}
