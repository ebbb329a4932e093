import type { Subscription } from './types.js';

/** The open subscriptions of one store, so closing the store ends every one of them. */
export interface SubscriptionRegistry {
  /** Returns the subscription wrapped so that closing it also forgets it. */
  track(subscription: Subscription): Subscription;
  closeAll(): Promise<void>;
}

export const createSubscriptionRegistry = (): SubscriptionRegistry => {
  const open = new Set<Subscription>();
  return {
    track: (subscription) => {
      open.add(subscription);
      return {
        [Symbol.asyncIterator]: () => subscription[Symbol.asyncIterator](),
        close: async () => {
          open.delete(subscription);
          await subscription.close();
        },
      };
    },
    closeAll: async () => {
      const closing = [...open].map((subscription) => subscription.close());
      open.clear();
      await Promise.all(closing);
    },
  };
};
