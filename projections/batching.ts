/**
 * Cuts a stream of events into batches: up to `maxSize` events, or fewer when no further event
 * is immediately available (the subscription is waiting for the database or for new events).
 * A catch-up therefore runs in full batches, and a live projection applies an event as soon
 * as it arrives instead of waiting for company.
 */
export interface Batch<T> {
  readonly items: readonly T[];
  /** Cut at `maxSize`: more items were (probably) ready. */
  readonly full: boolean;
}

export interface Batcher<T> {
  /**
   * The next batch; waits for its first item as long as it takes. Resolves `undefined` when the
   * source has ended and nothing is left.
   */
  next(): Promise<Batch<T> | undefined>;
  /** Items taken for the batch being collected (0 while waiting for its first). */
  readonly holding: number;
}

export interface BatcherOptions {
  readonly maxSize: number;
  /**
   * How long to wait for a further item before cutting a non-empty batch. The default (0)
   * waits one turn of the event loop: items already read from the database are taken, a new
   * round trip is not waited for.
   */
  readonly lingerMs?: number;
}

const IDLE = Symbol('idle');

const idle = (lingerMs: number): { promise: Promise<typeof IDLE>; cancel: () => void } => {
  let cancel = (): void => undefined;
  const promise = new Promise<typeof IDLE>((resolve) => {
    if (lingerMs <= 0) {
      const handle = setImmediate(() => {
        resolve(IDLE);
      });
      cancel = () => {
        clearImmediate(handle);
      };
    } else {
      const handle = setTimeout(() => {
        resolve(IDLE);
      }, lingerMs);
      cancel = () => {
        clearTimeout(handle);
      };
    }
  });
  return { promise, cancel };
};

export const createBatcher = <T>(source: AsyncIterator<T>, options: BatcherOptions): Batcher<T> => {
  if (!Number.isInteger(options.maxSize) || options.maxSize < 1) {
    throw new RangeError(`maxSize must be a positive integer (got ${options.maxSize})`);
  }
  const lingerMs = options.lingerMs ?? 0;
  // A `next()` of the source that lost a race against the idle timer: the next batch starts
  // with it, since calling `next()` again would skip an item.
  let pending: Promise<IteratorResult<T>> | undefined;
  let ended = false;
  let items: T[] = [];

  const cut = (full: boolean): Batch<T> => {
    const batch = { items, full };
    items = [];
    return batch;
  };

  return {
    get holding() {
      return items.length;
    },
    next: async () => {
      if (ended) return undefined;
      items = [];
      while (items.length < options.maxSize) {
        const result = (pending ??= source.next());
        let outcome: IteratorResult<T> | typeof IDLE;
        const timer = items.length === 0 ? undefined : idle(lingerMs);
        try {
          outcome = await (timer ? Promise.race([result, timer.promise]) : result);
        } catch (error) {
          // The source failed: it is finished, and the items taken so far are not applied.
          pending = undefined;
          ended = true;
          items = [];
          throw error;
        } finally {
          timer?.cancel();
        }
        if (outcome === IDLE) return cut(false);
        pending = undefined;
        if (outcome.done === true) {
          ended = true;
          return items.length > 0 ? cut(false) : undefined;
        }
        items.push(outcome.value);
      }
      return cut(true);
    },
  };
};
