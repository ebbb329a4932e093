import { Readable } from 'node:stream';
import { UnavailableError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { InvalidArgument, Unavailable } from '../../../services/runtime/errors.js';
import {
  collectRead,
  retryTransient,
  type CancellableRead,
} from '../../../services/event-store/esdb/resilience.js';

const policy = { forMs: 1_000, firstDelayMs: 5, maxDelayMs: 20 };

describe('esdb resilience: retrying transient failures', () => {
  it("given an attempt that fails with the client's unavailable error twice, when retried, then the third attempt's result returns", async () => {
    const attempts: number[] = [];
    const retries: number[] = [];
    const result = await retryTransient(
      policy,
      (n) => {
        attempts.push(n);
        return n < 3 ? Promise.reject(new UnavailableError()) : Promise.resolve('done');
      },
      { onRetry: (_error, n) => retries.push(n) },
    );
    expect(result).toBe('done');
    expect(attempts).toEqual([1, 2, 3]);
    expect(retries).toEqual([1, 2]);
  });

  it('given a failure that is not transient, when retried, then it is thrown at once, mapped', async () => {
    let calls = 0;
    const error = await retryTransient(policy, () => {
      calls += 1;
      return Promise.reject(new InvalidArgument('bad'));
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidArgument);
    expect(calls).toBe(1);
  });

  it('given failures that outlast the budget, when retried, then the last Unavailable is thrown once the time is up', async () => {
    const started = Date.now();
    const error = await retryTransient({ ...policy, forMs: 100 }, () =>
      Promise.reject(new UnavailableError()),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Unavailable);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('given an aborted signal, when an attempt fails, then no retry is made', async () => {
    let calls = 0;
    const controller = new AbortController();
    controller.abort();
    await expect(
      retryTransient(
        policy,
        () => {
          calls += 1;
          return Promise.reject(new UnavailableError());
        },
        { signal: controller.signal },
      ),
    ).rejects.toBeInstanceOf(Unavailable);
    expect(calls).toBe(1);
  });
});

const readOf = (
  items: number[],
  stallAfter?: number,
): CancellableRead<number> & { cancelled: boolean } => {
  let index = 0;
  const stream = new Readable({
    objectMode: true,
    read() {
      if (index === stallAfter) return; // never pushes again
      if (index >= items.length) this.push(null);
      else this.push(items[index++]);
    },
  });
  return Object.assign(stream, {
    cancelled: false,
    cancel(this: { cancelled: boolean }) {
      this.cancelled = true;
      return Promise.resolve();
    },
  });
};

describe('esdb resilience: reads that stall', () => {
  it('given a read that completes, when collected, then every item returns', async () => {
    expect(await collectRead(readOf([1, 2, 3]), 200)).toEqual([1, 2, 3]);
  });

  it('given a read that stops sending, when collected, then it is cancelled and Unavailable says why', async () => {
    const read = readOf([1, 2, 3], 2);
    const error = await collectRead(read, 50).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Error).message).toMatch(/sent nothing for 50 ms/);
    expect(read.cancelled).toBe(true);
  });
});
