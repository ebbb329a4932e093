import { describe, expect, it } from 'vitest';
import type { Database } from '../../../services/database/database.js';
import { createWake, streamCategory } from '../../../services/event-store/postgres/wake.js';
import type { Position } from '../../../services/event-store/types.js';
import { createLogger } from '../../../services/runtime/logger.js';

/**
 * Wake-ups name the categories and the newest position appended: a subscriber filtered by
 * stream prefix is woken only for a category it may want, and a read that reached the
 * position settles it.
 */
const at = (n: number): Position =>
  `${n.toString(16).padStart(16, '0')}-${n.toString(16).padStart(16, '0')}` as Position;

// No server: nothing is published, only this process's subscribers are woken.
const embedded = { kind: 'pglite', connectionString: undefined } as unknown as Database;
const wake = () => createWake(embedded, createLogger('silent'));

/** Whether `wait` resolved before `ms` (a wake-up) rather than at it (a time-out). */
const wokenWithin = async (promise: Promise<void>, ms: number): Promise<boolean> => {
  const started = performance.now();
  await promise;
  return performance.now() - started < ms / 2;
};

describe('wake-ups by category and position', () => {
  it('names a stream by its id up to the first dash', () => {
    expect(streamCategory('network-deps')).toBe('network-');
    expect(streamCategory('request-req-2026-0001')).toBe('request-');
    expect(streamCategory('ledger')).toBe('ledger');
  });

  it('given a subscriber of network- streams, when a request is appended, then it is not woken', async () => {
    const w = wake();
    const networks = w.interest({ streamPrefixes: ['network-'] });
    const generation = networks.generation;
    w.appended(['request-req-2026-0001'], at(5));
    expect(networks.generation).toBe(generation);
    expect(await wokenWithin(networks.wait(60), 60)).toBe(false);
    expect(networks.read(generation, at(1))).toBe(false);
    await w.close();
  });

  it('given a subscriber of network- streams, when a network is appended, then it reads until it has reached that position', async () => {
    const w = wake();
    const networks = w.interest({ streamPrefixes: ['network-'] });
    const all = w.interest(undefined);
    const waiting = networks.wait(1000);
    w.appended(['network-deps'], at(7));
    expect(await wokenWithin(waiting, 1000)).toBe(true);
    // An older transaction still hid it: still unread, and waiting returns at once.
    expect(networks.read(networks.generation, at(6))).toBe(true);
    expect(await wokenWithin(networks.wait(1000), 1000)).toBe(true);
    expect(networks.read(networks.generation, at(7))).toBe(false);
    // An unfiltered subscriber is woken by every append.
    expect(await wokenWithin(all.wait(1000), 1000)).toBe(true);
    await w.close();
  });

  it('given a wake-up that names nothing, then every subscriber reads once after it', async () => {
    const w = wake();
    const networks = w.interest({ streamPrefixes: ['network-'] });
    const before = networks.generation;
    w.appended();
    expect(await wokenWithin(networks.wait(1000), 1000)).toBe(true);
    // A read begun before the wake-up does not cover it; one begun after does.
    expect(networks.read(before, undefined)).toBe(true);
    expect(networks.read(networks.generation, undefined)).toBe(false);
    await w.close();
  });

  it('given a prefix narrower or wider than a category, then it is woken (it may want it)', async () => {
    const w = wake();
    const narrow = w.interest({ streamPrefixes: ['request-req-2026'] });
    const wide = w.interest({ streamPrefixes: ['req'] });
    const generations = [narrow.generation, wide.generation];
    w.appended(['request-req-2025-0009'], at(3));
    expect([narrow.generation, wide.generation]).toEqual(generations.map((g) => g + 1));
    await w.close();
  });
});
