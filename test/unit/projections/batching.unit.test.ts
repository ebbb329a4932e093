import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../../projections/batching.js';

/** An async source fed by the test: `push` makes items available, `end` finishes it. */
const channel = <T>() => {
  const items: T[] = [];
  const waiting: ((result: IteratorResult<T>) => void)[] = [];
  let ended = false;
  let failure: Error | undefined;
  const iterator: AsyncIterator<T> = {
    next: () => {
      const item = items.shift();
      if (item !== undefined) return Promise.resolve({ done: false, value: item });
      if (failure) return Promise.reject(failure);
      if (ended) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
  return {
    iterator,
    push: (...values: T[]) => {
      for (const value of values) {
        const resolve = waiting.shift();
        if (resolve) resolve({ done: false, value });
        else items.push(value);
      }
    },
    end: () => {
      ended = true;
      for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined });
    },
    fail: (error: Error) => {
      failure = error;
    },
  };
};

const sizes = async (
  source: AsyncIterator<number>,
  maxSize: number,
): Promise<[number, boolean][]> => {
  const batcher = createBatcher(source, { maxSize });
  const out: [number, boolean][] = [];
  for (let batch = await batcher.next(); batch; batch = await batcher.next()) {
    out.push([batch.items.length, batch.full]);
  }
  return out;
};

describe('createBatcher', () => {
  it('cuts a ready backlog into full batches, then a short last one', async () => {
    const source = channel<number>();
    source.push(...Array.from({ length: 1200 }, (_, i) => i));
    source.end();
    expect(await sizes(source.iterator, 500)).toEqual([
      [500, true],
      [500, true],
      [200, false],
    ]);
  });

  it('keeps log order and loses no item across batches', async () => {
    async function* numbers() {
      for (let i = 0; i < 1234; i += 1) {
        if (i % 97 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        yield i;
      }
    }
    const batcher = createBatcher(numbers(), { maxSize: 100 });
    const seen: number[] = [];
    for (let batch = await batcher.next(); batch; batch = await batcher.next()) {
      expect(batch.items.length).toBeLessThanOrEqual(100);
      seen.push(...batch.items);
    }
    expect(seen).toEqual(Array.from({ length: 1234 }, (_, i) => i));
  });

  it('cuts a batch when no further item is immediately available', async () => {
    const source = channel<string>();
    const batcher = createBatcher(source.iterator, { maxSize: 500 });
    source.push('a', 'b', 'c');
    expect(await batcher.next()).toEqual({ items: ['a', 'b', 'c'], full: false });
    const next = batcher.next();
    expect(batcher.holding).toBe(0);
    setTimeout(() => {
      source.push('d');
    }, 5);
    expect(await next).toEqual({ items: ['d'], full: false });
  });

  it('starts the next batch with the item that arrived after the cut', async () => {
    const source = channel<number>();
    const batcher = createBatcher(source.iterator, { maxSize: 10 });
    source.push(1);
    const first = await batcher.next();
    // The batcher's pending read of the source is answered by this push.
    source.push(2, 3);
    const second = await batcher.next();
    expect([first?.items, second?.items]).toEqual([[1], [2, 3]]);
  });

  it('waits up to lingerMs for company when asked to', async () => {
    const source = channel<number>();
    const batcher = createBatcher(source.iterator, { maxSize: 10, lingerMs: 50 });
    source.push(1);
    setTimeout(() => {
      source.push(2);
    }, 10);
    expect(await batcher.next()).toEqual({ items: [1, 2], full: false });
  });

  it('ends when the source ends, and returns undefined afterwards', async () => {
    const source = channel<number>();
    const batcher = createBatcher(source.iterator, { maxSize: 10 });
    const pending = batcher.next();
    source.end();
    expect(await pending).toBeUndefined();
    expect(await batcher.next()).toBeUndefined();
  });

  it('passes a source failure on and drops what it had taken', async () => {
    const source = channel<number>();
    const batcher = createBatcher(source.iterator, { maxSize: 10, lingerMs: 20 });
    source.push(1);
    source.fail(new Error('connection lost'));
    await expect(batcher.next()).rejects.toThrow('connection lost');
    expect(batcher.holding).toBe(0);
    expect(await batcher.next()).toBeUndefined();
  });

  it('refuses a batch size below one', () => {
    expect(() => createBatcher(channel<number>().iterator, { maxSize: 0 })).toThrow(RangeError);
  });
});
