import { randomUUID } from 'node:crypto';
import { EventStoreDBClient } from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEsdbEventStore } from '../../../services/event-store/esdb/adapter.js';
import type {
  EventStore,
  EventToAppend,
  RecordedEvent,
  Subscription,
} from '../../../services/event-store/types.js';
import {
  startEsdbDouble,
  type EsdbDouble,
  type EsdbDoubleOptions,
} from '../../support/esdb-double/index.js';

/**
 * The EventStoreDB adapter under the faults a real node and network produce, injected by the
 * protocol double: appends that fail before or after the write (UNAVAILABLE, the server's
 * timeout, no answer before the deadline), subscriptions dropped mid-catch-up and live, slow
 * and stalled reads, a node restart. In each case the adapter recovers by itself: a retried
 * append carries the same event ids, so an append that did happen is found, not repeated.
 */
const metadata = () => ({
  actor: 'agent:faults',
  correlationId: randomUUID(),
  causationId: randomUUID(),
  at: new Date().toISOString(),
});
const events = (count: number): EventToAppend[] =>
  Array.from({ length: count }, (_, n) => ({
    id: randomUUID(),
    type: 'Measured',
    data: { n },
    metadata: metadata(),
  }));

let unique = 0;
const streamName = (): string => `fault${String((unique += 1))}-${Date.now().toString(36)}`;

/** The double's stored events of a stream: the truth the adapter's answers are checked against. */
const stored = (double: EsdbDouble, streamId: string) =>
  double.log.all().filter((record) => record.streamId === streamId);

/** Collects `count` events of a subscription, or throws after `timeoutMs`. */
const take = async (
  subscription: Subscription,
  count: number,
  timeoutMs = 30_000,
): Promise<RecordedEvent[]> => {
  const received: RecordedEvent[] = [];
  const timer = setTimeout(() => void subscription.close(), timeoutMs);
  try {
    for await (const event of subscription) {
      received.push(event);
      if (received.length === count) break;
    }
  } finally {
    clearTimeout(timer);
    await subscription.close();
  }
  if (received.length < count)
    throw new Error(`only ${received.length} of ${count} events arrived`);
  return received;
};

/** A double and an adapter on it for the describe block, closed after it; no violations. */
const onDouble = (options: EsdbDoubleOptions = {}, connectionString = (url: string) => url) => {
  const fixture = {} as { double: EsdbDouble; store: EventStore };
  beforeAll(async () => {
    fixture.double = await startEsdbDouble(options);
    fixture.store = createEsdbEventStore({
      connectionString: connectionString(fixture.double.url),
      retryForMs: 8_000,
      readIdleTimeoutMs: 1_000,
    });
  });
  afterAll(async () => {
    await fixture.store.close();
    await fixture.double.close();
    expect(fixture.double.violations).toEqual([]);
  });
  return fixture;
};

describe.each([
  ['BatchAppend', 'current'],
  ['Append', 'none'],
] as const)('EventStoreDB adapter under faults, appending with %s', (_path, features) => {
  // A short server write timeout and client deadline keep the deadline cases quick.
  const fixture = onDouble(
    { features, writeTimeoutMs: 400 },
    (url) => `${url}&defaultDeadline=600`,
  );

  describe.each([
    ['unavailable', true],
    ['unavailable', false],
    ['timeout', true],
    ['timeout', false],
    ['deadline', true],
    ['deadline', false],
  ] as const)('an append answered %s (written first: %s)', (kind, afterWrite) => {
    it.each([
      ['an exact revision', (previous: bigint | null) => previous ?? ('no_stream' as const)],
      ['any', () => 'any' as const],
    ])(
      'given %s, when the append is retried, then it returns the stored result and each event is stored once',
      async (_label, expectation) => {
        const stream = streamName();
        const first = await fixture.store.append(stream, events(2), {
          expectedRevision: 'no_stream',
        });
        const batch = events(3);
        fixture.double.faults.inject({ on: 'append', kind, afterWrite, stream });
        const result = await fixture.store.append(stream, batch, {
          expectedRevision: expectation(first.nextRevision),
        });
        const records = stored(fixture.double, stream);
        expect(records.map((record) => record.id)).toEqual([
          ...records.slice(0, 2).map((record) => record.id),
          ...batch.map((event) => event.id),
        ]);
        expect(result.nextRevision).toBe(4n);
        const read = await fixture.store.readStream(stream);
        expect(read.at(-1)?.position).toBe(result.position);
        expect(fixture.double.faults.counts.get(`append:${kind}`)).toBeGreaterThan(0);
      },
    );
  });

  it('given an append written but unanswered and reads that keep failing past the retry budget, then Unavailable says the append may have been written, and a retry with the same ids stores it once', async () => {
    const impatient = createEsdbEventStore({
      connectionString: fixture.double.url,
      retryForMs: 1_000,
      readIdleTimeoutMs: 1_000,
    });
    try {
      const stream = streamName();
      const batch = events(2);
      fixture.double.faults.inject({ on: 'append', kind: 'unavailable', afterWrite: true, stream });
      fixture.double.faults.inject({
        on: 'read-stream',
        kind: 'unavailable',
        stream,
        skip: 1,
        times: Infinity,
      });
      const error = await impatient
        .append(stream, batch, { expectedRevision: 'no_stream' })
        .catch((caught: unknown) => caught);
      fixture.double.faults.clear();
      expect(error).toMatchObject({ code: 'UNAVAILABLE' });
      expect((error as Error).message).toMatch(/may have been written.*same event ids/);
      const result = await impatient.append(stream, batch, { expectedRevision: 'no_stream' });
      expect(result.nextRevision).toBe(1n);
      expect(stored(fixture.double, stream)).toHaveLength(2);
    } finally {
      await impatient.close();
    }
  });
});

describe('EventStoreDB adapter reads and subscriptions under faults', () => {
  const fixture = onDouble();

  it.each([
    ['dropped after 3 events of the catch-up', 3],
    ['dropped on its first event', 1],
  ])(
    'given a subscription %s, when it resubscribes, then every event arrives exactly once and in order',
    async (_label, afterEvents) => {
      const prefix = `${streamName()}-`;
      await fixture.store.append(`${prefix}a`, events(10), { expectedRevision: 'no_stream' });
      fixture.double.faults.inject({ on: 'subscription', kind: 'drop', afterEvents });
      const received = await take(
        fixture.store.subscribeToAll({ filter: { streamPrefixes: [prefix] } }),
        10,
      );
      expect(received.map((event) => event.revision)).toEqual(
        Array.from({ length: 10 }, (_, n) => BigInt(n)),
      );
    },
  );

  it('given a live subscription, when the node drops it and events keep coming, then none is lost or repeated', async () => {
    const prefix = `${streamName()}-`;
    let caughtUp!: () => void;
    const live = new Promise<void>((resolve) => (caughtUp = resolve));
    const subscription = fixture.store.subscribeToAll({
      filter: { streamPrefixes: [prefix] },
      onCaughtUp: () => {
        caughtUp();
      },
    });
    const receiving = take(subscription, 6);
    await live;
    await fixture.store.append(`${prefix}a`, events(3), { expectedRevision: 'no_stream' });
    await expect
      .poll(() => fixture.double.dropSubscriptions(), { timeout: 5_000 })
      .toBeGreaterThan(0);
    await fixture.store.append(`${prefix}a`, events(3), { expectedRevision: 2n });
    const received = await receiving;
    expect(received.map((event) => event.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n]);
  });

  it('given slow reads, when appending and reading, then the answers are complete and correct', async () => {
    const stream = streamName();
    fixture.double.faults.inject({
      on: 'read-stream',
      kind: 'slow',
      delayMs: 300,
      stream,
      times: 4,
    });
    const first = await fixture.store.append(stream, events(2), { expectedRevision: 'no_stream' });
    await fixture.store.append(stream, events(2), { expectedRevision: first.nextRevision });
    expect((await fixture.store.readStream(stream)).map((event) => event.revision)).toEqual([
      0n,
      1n,
      2n,
      3n,
    ]);
  });

  it('given a read that stalls past the idle timeout, when reading, then the adapter cancels it and reads again', async () => {
    const stream = streamName();
    await fixture.store.append(stream, events(3), { expectedRevision: 'no_stream' });
    const handle = fixture.double.faults.inject({
      on: 'read-stream',
      kind: 'slow',
      delayMs: 20_000,
      stream,
    });
    const started = Date.now();
    const read = await fixture.store.readStream(stream);
    expect(read).toHaveLength(3);
    expect(handle.fired).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    fixture.double.faults.inject({ on: 'read-all', kind: 'slow', delayMs: 20_000 });
    expect(await fixture.store.readAll({ filter: { streamPrefixes: [stream] } })).toHaveLength(3);
  });

  it('given reads that fail with UNAVAILABLE, when reading, then the adapter retries them', async () => {
    const stream = streamName();
    await fixture.store.append(stream, events(2), { expectedRevision: 'no_stream' });
    fixture.double.faults.inject({ on: 'read-stream', kind: 'unavailable', stream, times: 2 });
    fixture.double.faults.inject({ on: 'read-all', kind: 'unavailable', times: 2 });
    expect(await fixture.store.readStream(stream)).toHaveLength(2);
    expect(await fixture.store.readAll({ filter: { streamPrefixes: [stream] } })).toHaveLength(2);
  });

  it('given a load of appends and a live subscriber, when the node restarts twice, then every acknowledged append is stored once and delivered once', async () => {
    const prefix = `${streamName()}-`;
    const subscription = fixture.store.subscribeToAll({ filter: { streamPrefixes: [prefix] } });
    const received: RecordedEvent[] = [];
    const reading = (async () => {
      for await (const event of subscription) received.push(event);
    })();
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      let revision: bigint | null = null;
      for (let i = 0; !stop; i += 1) {
        const batch = events(2);
        const result = await fixture.store.append(`${prefix}w${w}`, batch, {
          expectedRevision: revision ?? 'no_stream',
        });
        revision = result.nextRevision;
        acknowledged.push(...batch.map((event) => event.id));
      }
    };
    const writers = Promise.all([0, 1, 2].map(writer));
    await expect.poll(() => acknowledged.length, { timeout: 10_000 }).toBeGreaterThan(20);
    await fixture.double.restart(300);
    await expect.poll(() => acknowledged.length, { timeout: 20_000 }).toBeGreaterThan(60);
    await fixture.double.restart(800);
    await expect.poll(() => acknowledged.length, { timeout: 20_000 }).toBeGreaterThan(100);
    stop = true;
    await writers;
    const storedIds = fixture.double.log
      .all()
      .filter((record) => record.streamId.startsWith(prefix))
      .map((record) => record.id);
    expect(storedIds).toEqual([...new Set(storedIds)]);
    expect(new Set(storedIds)).toEqual(new Set(acknowledged));
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(storedIds.length);
    await subscription.close();
    await reading;
    expect(received.map((event) => event.id).sort()).toEqual([...storedIds].sort());
  }, 90_000);
});

describe('EventStoreDB adapter and streams an operator deleted', () => {
  const fixture = onDouble();
  let operator: EventStoreDBClient;

  beforeAll(() => {
    operator = EventStoreDBClient.connectionString(fixture.double.url);
  });
  afterAll(async () => {
    await operator.dispose();
  });

  it('given a tombstoned stream, when it is read or appended to, then FAILED_PRECONDITION names the deletion and nothing is written', async () => {
    const stream = streamName();
    await fixture.store.append(stream, events(2), { expectedRevision: 'no_stream' });
    await operator.tombstoneStream(stream);
    for (const attempt of [
      () => fixture.store.readStream(stream),
      () => fixture.store.append(stream, events(1), { expectedRevision: 'any' }),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'FAILED_PRECONDITION' });
      expect((error as Error).message).toMatch(/deleted in EventStoreDB/);
    }
    expect(
      stored(fixture.double, stream).filter((record) => !record.type.startsWith('$')),
    ).toHaveLength(2);
  });

  it('given a soft-deleted stream, when it is read it is empty, and an append is refused rather than restarting its chain', async () => {
    const stream = streamName();
    await fixture.store.append(stream, events(2), { expectedRevision: 'no_stream' });
    await operator.deleteStream(stream);
    expect(await fixture.store.readStream(stream)).toEqual([]);
    for (const expectedRevision of ['no_stream', 'any'] as const) {
      const error = await fixture.store
        .append(stream, events(1), { expectedRevision })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'FAILED_PRECONDITION' });
    }
    expect(stored(fixture.double, stream)).toHaveLength(2);
  });
});
