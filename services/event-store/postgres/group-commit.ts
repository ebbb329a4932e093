/**
 * Group commit. While `maxInFlight` groups are being written, new items wait in a queue; the
 * next free slot takes everything queued (up to the size limits) and writes it as one
 * statement, one transaction, one WAL flush. A lone writer never waits: its item goes out at
 * once as a group of one. Under concurrency the commits are shared, which is what lets the
 * log keep up with plain INSERTs.
 *
 * A group fails as a whole (one item's conflict aborts the statement); its items are then
 * written one by one, so each gets its own outcome. Retrying is safe: an append is idempotent
 * by its event ids.
 */
export interface GroupCommitOptions<Item, Result> {
  readonly maxInFlight: number;
  readonly maxItemsPerGroup: number;
  readonly maxWeightPerGroup: number;
  readonly weight: (item: Item) => number;
  /** Writes the items together; returns one result per item, in order. */
  readonly write: (items: readonly Item[]) => Promise<Result[]>;
}

interface Pending<Item, Result> {
  readonly item: Item;
  readonly resolve: (result: Result) => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupCommitter<Item, Result> {
  submit(item: Item): Promise<Result>;
  /** Resolves when nothing is queued or in flight. */
  drain(): Promise<void>;
}

export const createGroupCommitter = <Item, Result>(
  options: GroupCommitOptions<Item, Result>,
): GroupCommitter<Item, Result> => {
  const queue: Pending<Item, Result>[] = [];
  let inFlight = 0;
  let idle: (() => void)[] = [];

  const takeGroup = (): Pending<Item, Result>[] => {
    const group: Pending<Item, Result>[] = [];
    let weight = 0;
    for (let next = queue[0]; next && group.length < options.maxItemsPerGroup; next = queue[0]) {
      const itemWeight = options.weight(next.item);
      if (group.length > 0 && weight + itemWeight > options.maxWeightPerGroup) break;
      queue.shift();
      group.push(next);
      weight += itemWeight;
    }
    return group;
  };

  const settle = async (group: readonly Pending<Item, Result>[]): Promise<void> => {
    const results = await options.write(group.map((pending) => pending.item));
    group.forEach((pending, index) => {
      const result = results[index];
      if (result === undefined) pending.reject(new Error('group write returned too few results'));
      else pending.resolve(result);
    });
  };

  const write = async (group: Pending<Item, Result>[]): Promise<void> => {
    try {
      await settle(group);
    } catch (error) {
      if (group.length === 1) {
        group[0]?.reject(error);
        return;
      }
      await Promise.all(group.map((pending) => settle([pending]).catch(pending.reject)));
    }
  };

  const pump = (): void => {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const group = takeGroup();
      inFlight += 1;
      void write(group).finally(() => {
        inFlight -= 1;
        pump();
        if (inFlight === 0 && queue.length === 0) {
          const waiting = idle;
          idle = [];
          for (const resolve of waiting) resolve();
        }
      });
    }
  };

  return {
    submit: (item) =>
      new Promise<Result>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      }),
    drain: () =>
      inFlight === 0 && queue.length === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            idle.push(resolve);
          }),
  };
};
