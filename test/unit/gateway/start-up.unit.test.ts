import { describe, expect, it } from 'vitest';
import { increasingProgress } from '../../../mcp-gateway/server/progress.js';
import {
  START_UP_META_KEY,
  stillStartingError,
  stillStartingToolResult,
  waitForStartUp,
} from '../../../mcp-gateway/server/start-up-gate.js';
import {
  createStartUp,
  describeStartUp,
  estimateRetrySeconds,
} from '../../../mcp-gateway/start-up.js';

/**
 * The process's start-up state (steps reported by the catalog ingest and the search index
 * build) and the gateway's bounded wait on it.
 */
const collect = () => {
  const sent: { progress: number; total?: number; message?: string }[] = [];
  const send = (progress: number, total?: number, message?: string): Promise<void> => {
    sent.push({
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
    });
    return Promise.resolve();
  };
  return { sent, send };
};

describe('start-up state', () => {
  it('given no step, when asked, then it is ready at once', async () => {
    const startUp = createStartUp();
    expect(startUp.isReady()).toBe(true);
    expect(startUp.progress()).toEqual({ phase: 'ready' });
    await expect(startUp.whenReady()).resolves.toBeUndefined();
  });

  it('given a catalog step and a search step, when they report and finish, then progress shows the first unfinished one and ready comes after both', async () => {
    const startUp = createStartUp();
    const catalog = startUp.step('catalog', 'ingesting');
    const search = startUp.step('search', 'indexing');
    let resolved = false;
    const ready = startUp.whenReady().then(() => {
      resolved = true;
    });
    catalog.report('ingesting', 120, 340);
    expect(startUp.progress()).toEqual({ phase: 'ingesting', done: 120, total: 340 });
    expect(describeStartUp(startUp.progress())).toBe('ingesting the catalog: 120 of 340 documents');
    search.done();
    expect(startUp.progress().phase).toBe('ingesting');
    catalog.report('projecting');
    expect(describeStartUp(startUp.progress())).toBe('applying the catalog to its read model');
    await Promise.resolve();
    expect(resolved).toBe(false);
    expect(startUp.waiting()).toBe(1);
    catalog.done();
    await ready;
    expect(resolved).toBe(true);
    expect(startUp.isReady()).toBe(true);
    expect(startUp.waiting()).toBe(0);
  });

  it('given a waiter, when its signal aborts, then it rejects with the reason and stops waiting', async () => {
    const startUp = createStartUp();
    startUp.step('catalog', 'ingesting');
    const controller = new AbortController();
    const waiting = startUp.whenReady(controller.signal);
    expect(startUp.waiting()).toBe(1);
    controller.abort(new Error('cancelled by the client'));
    await expect(waiting).rejects.toThrow('cancelled by the client');
    expect(startUp.waiting()).toBe(0);
  });

  it('given a pace of 10 documents a second, when 100 remain, then the retry hint is 10 s, bounded to 1..60', () => {
    const progress = { phase: 'ingesting' as const, done: 40, total: 140 };
    expect(estimateRetrySeconds(progress, { at: 0, done: 0 }, 4000)).toBe(10);
    expect(estimateRetrySeconds(progress, { at: 0, done: 0 }, 400_000)).toBe(60);
    expect(estimateRetrySeconds({ ...progress, total: 40 }, { at: 0, done: 0 }, 4000)).toBe(1);
    expect(estimateRetrySeconds({ phase: 'indexing' }, undefined, 4000)).toBe(5);
  });

  it('given reports on a clock, when a caller asks when to retry, then the estimate follows the phase pace', () => {
    let now = 1000;
    const startUp = createStartUp(() => now);
    const catalog = startUp.step('catalog', 'ingesting');
    catalog.report('ingesting', 0, 300);
    now += 2000;
    catalog.report('ingesting', 100, 300);
    expect(startUp.retryAfterSeconds()).toBe(4);
    catalog.report('projecting', 0, 50);
    expect(startUp.retryAfterSeconds()).toBe(5);
  });
});

describe('start-up gate', () => {
  it('given a held start-up, when a call waits and the catalog step finishes, then it answers ready with progress sent on the way', async () => {
    const startUp = createStartUp();
    const catalog = startUp.step('catalog', 'ingesting');
    const { sent, send } = collect();
    const waiting = waitForStartUp(
      { state: startUp, waitMs: 5000 },
      new AbortController().signal,
      send,
    );
    catalog.report('ingesting', 5, 10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    catalog.done();
    await expect(waiting).resolves.toBeUndefined();
    expect(sent[0]).toEqual({
      progress: 0,
      message: 'Cogitave is starting: ingesting the catalog',
    });
    expect(sent).toContainEqual({
      progress: 5,
      total: 10,
      message: 'Cogitave is starting: ingesting the catalog: 5 of 10 documents',
    });
    expect(startUp.waiting()).toBe(0);
  });

  it('given a start-up that does not finish, when the bound passes, then the call is told what is starting and when to retry', async () => {
    const startUp = createStartUp();
    startUp.step('catalog', 'ingesting').report('ingesting', 120, 340);
    const starting = await waitForStartUp(
      { state: startUp, waitMs: 50 },
      new AbortController().signal,
      () => Promise.resolve(),
    );
    expect(starting?.message).toBe(
      'Cogitave is still starting (ingesting the catalog: 120 of 340 documents); retry in 5 s',
    );
    expect(startUp.waiting()).toBe(0);
    const result = stillStartingToolResult(starting!);
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^UNAVAILABLE: Cogitave is still starting/);
    expect(result._meta[START_UP_META_KEY]).toEqual({
      phase: 'ingesting',
      done: 120,
      total: 340,
      retryAfterSeconds: 5,
    });
    const error = stillStartingError(starting!);
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ phase: 'ingesting', retryAfterSeconds: 5 });
  });

  it('given a waiting call, when the client cancels, then the wait rejects at once', async () => {
    const startUp = createStartUp();
    startUp.step('catalog', 'ingesting');
    const controller = new AbortController();
    const waiting = waitForStartUp({ state: startUp, waitMs: 60_000 }, controller.signal, () =>
      Promise.resolve(),
    );
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(startUp.waiting()).toBe(0);
  });
});

describe('increasing progress', () => {
  it('given reporters that each count from 0, when they report in turn, then the client sees one increasing sequence with shifted totals', async () => {
    const { sent, send } = collect();
    const progress = increasingProgress(send);
    await progress(0, 10, 'a');
    await progress(10, 10, 'b');
    await progress(0, 1, 'c');
    await progress(1, 1, 'd');
    await progress(0);
    expect(sent.map((entry) => [entry.progress, entry.total])).toEqual([
      [0, 10],
      [10, 10],
      [11, 12],
      [12, 12],
      [13, undefined],
    ]);
  });
});
