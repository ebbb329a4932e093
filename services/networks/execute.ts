import { runCommand, type CommandOutcome, type Folded as Decidable } from '../commands/handler.js';
import type { CommandMetadata } from '../commands/metadata.js';
import type { EventStore } from '../event-store/types.js';
import type { BatchDecision, ItemOutcome } from './decide-batch.js';
import { NetworkBusy } from './errors.js';
import { networkStreamId, type NetworkEvent } from './events.js';
import { createKeyedQueue } from './keyed-queue.js';
import { evolve, type NetworkState } from './state.js';
import { NetworkStateCache, toNetworkEvent, type FoldedNetwork } from './state-cache.js';

/**
 * How a network command runs: serialised per network within a process, decided on the cached
 * state when there is one, appended through the command kernel (`runCommand`) at the revision
 * decided on. Across processes the expected revision guards the append, and a
 * `WrongExpectedVersion` means: catch up, decide again, retry.
 */

export interface Executed {
  /** The network after the command (as decided on, when nothing was appended). */
  readonly folded: FoldedNetwork;
  /** The command's events: appended now, or stored by an earlier attempt of it. */
  readonly events: readonly NetworkEvent[];
}

/** A batch decided on a cached state refused an item: only the stream can confirm that. */
class RefusedOnCache extends Error {}

export interface NetworkExecutorOptions {
  readonly eventStore: EventStore;
  /** Decisions retried after a concurrent write before giving up. */
  readonly maxAttempts: number;
  /** Networks whose folded state is kept between commands. */
  readonly cachedNetworks: number;
}

export const createNetworkExecutor = ({
  eventStore,
  maxAttempts,
  cachedNetworks,
}: NetworkExecutorOptions) => {
  const cache = new NetworkStateCache(eventStore, cachedNetworks);
  const serialised = createKeyedQueue();

  /**
   * Runs the command on the cached state when there is one (saving a read per command), else
   * on the stream. The cache is always a prefix of the stream, so what it decides is safe: a
   * node it knows exists (`duplicate` is right), and events it decides are appended at its
   * revision, which the store refuses if the stream moved on. A refusal decided on the cache
   * is checked on the stream (`runCommand` does that for a state that is not `fresh`).
   */
  const execute = (
    networkName: string,
    meta: CommandMetadata,
    decide: (folded: Decidable<NetworkState>) => readonly NetworkEvent[],
  ): Promise<Executed> => {
    const streamId = networkStreamId(networkName);
    return serialised(streamId, async () => {
      const outcome: CommandOutcome<NetworkState, NetworkEvent> = await runCommand(
        eventStore,
        {
          streamId,
          meta,
          load: async (fresh) => {
            const cached = fresh ? undefined : cache.get(streamId);
            const folded = cached ?? (await cache.catchUp(streamId));
            return { ...folded, revision: folded.state.revision, fresh: cached === undefined };
          },
          decide,
          parse: toNetworkEvent,
        },
        {
          maxAttempts,
          conflict: (error, attempts) => new NetworkBusy(networkName, attempts, { cause: error }),
        },
      );
      const decidedOn = { state: outcome.decidedOn.state, position: outcome.decidedOn.position };
      if (outcome.replayed || outcome.events.length === 0) {
        return { folded: decidedOn, events: outcome.events };
      }
      const next = {
        state: outcome.events.reduce(evolve, decidedOn.state),
        position: outcome.position,
      };
      if (next.state.revision === outcome.revision) cache.remember(streamId, next);
      else cache.forget(streamId);
      return { folded: next, events: outcome.events };
    });
  };

  /** Runs a batch; `items` are those of the decision whose events were appended (or replayed). */
  const executeBatch = async (
    networkName: string,
    meta: CommandMetadata,
    decideBatch: (state: NetworkState) => BatchDecision<NetworkEvent>,
  ): Promise<{ readonly executed: Executed; readonly items: readonly ItemOutcome[] }> => {
    let items: readonly ItemOutcome[] = [];
    const executed = await execute(networkName, meta, (folded) => {
      const decision = decideBatch(folded.state);
      if (!folded.fresh && decision.items.some((item) => item.status === 'error')) {
        throw new RefusedOnCache();
      }
      items = decision.items;
      return decision.events;
    });
    return { executed, items };
  };

  return { execute, executeBatch };
};
