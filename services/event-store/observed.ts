import type { EventStore, EventToAppend } from './types.js';

/**
 * Called once an append has committed, in the process that appended, with the events as
 * given (an atomic append: each part's, in order). It must not throw or block: it runs on the
 * writer's path after the commit, and whatever it does cannot undo the append.
 */
export type AppendObserver = (streamId: string, events: readonly EventToAppend[]) => void;

/**
 * The store with `observer` told of every committed append: the one place that sees every
 * write of this process, whichever path made it (MCP, console, CLI, webhook, reactor). Reads
 * and subscriptions are the store's own.
 */
export const observeAppends = (store: EventStore, observer: AppendObserver): EventStore => {
  const atomic = store.appendAtomically?.bind(store);
  return {
    kind: store.kind,
    append: async (streamId, events, options) => {
      const result = await store.append(streamId, events, options);
      observer(streamId, events);
      return result;
    },
    ...(atomic
      ? {
          appendAtomically: async (appends) => {
            const results = await atomic(appends);
            for (const part of appends) observer(part.streamId, part.events);
            return results;
          },
        }
      : {}),
    readStream: (streamId, options) => store.readStream(streamId, options),
    readAll: (options) => store.readAll(options),
    lastPosition: () => store.lastPosition(),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: () => store.close(),
  };
};
