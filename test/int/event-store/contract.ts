import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuplicateEventId, WrongExpectedVersion } from '../../../services/event-store/errors.js';
import { findChainBreak } from '../../../services/event-store/hash-chain.js';
import { comparePositions } from '../../../services/event-store/position.js';
import { settleLog } from '../../../services/event-store/settle.js';
import type {
  AppendOptions,
  AppendResult,
  EventFilter,
  EventStore,
  EventToAppend,
  Position,
  RecordedEvent,
  SubscribeOptions,
} from '../../../services/event-store/types.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';

/** A transaction the test controls, to make commits land out of order on purpose. */
export interface OpenTransaction {
  append(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions,
  ): Promise<AppendResult>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export interface ContractSubject {
  readonly store: EventStore;
  /** true when two transactions can be open at once (false for embedded PGlite). */
  readonly concurrentTransactions: boolean;
  /** Adapters with client-visible transactions offer this; the suite then delays commits. */
  readonly openTransaction?: () => Promise<OpenTransaction>;
  /**
   * false when the store cannot see event ids of other streams (EventStoreDB has no global id
   * index): a reused id is then caught only within its own stream.
   */
  readonly globalEventIds?: boolean;
  close(): Promise<void>;
}

const metadata = (actor = 'agent:contract') => ({
  actor,
  correlationId: randomUUID(),
  causationId: randomUUID(),
  at: new Date().toISOString(),
});

export const newEvent = (type = 'ThingHappened', data: unknown = { n: 1 }): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: metadata(),
});

const events = (count: number, type?: string): EventToAppend[] =>
  Array.from({ length: count }, (_, i) => newEvent(type, { i, note: `event ${i}` }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a subscription until `count` events arrived or the deadline passed. */
const collect = async (
  store: EventStore,
  options: SubscribeOptions,
  count: number,
  timeoutMs = 60_000,
): Promise<RecordedEvent[]> => {
  const received: RecordedEvent[] = [];
  const subscription = store.subscribeToAll(options);
  const timer = setTimeout(() => void subscription.close(), timeoutMs);
  try {
    for await (const event of subscription) {
      received.push(event);
      if (received.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    await subscription.close();
  }
  return received;
};

/**
 * The global log shows an event once every older transaction on the server has ended (the
 * rule that keeps late commits from being skipped), so a read right after an append may not
 * see it yet while other work runs on the same server. Wait for it, as a subscriber would.
 */
const readAllOnceVisible = async (
  store: EventStore,
  filter: EventFilter,
  count: number,
  timeoutMs = 30_000,
): Promise<RecordedEvent[]> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = await store.readAll({ filter });
    if (events.length >= count || Date.now() > deadline) return events;
    await sleep(50);
  }
};

const expectStrictlyIncreasing = (positions: readonly Position[]): void => {
  for (let i = 1; i < positions.length; i += 1) {
    const [before, after] = [positions[i - 1], positions[i]];
    if (before === undefined || after === undefined || comparePositions(before, after) >= 0) {
      expect.fail(`position ${String(after)} at index ${i} does not follow ${String(before)}`);
    }
  }
};

export function describeEventStoreContract(
  name: string,
  create: () => Promise<ContractSubject>,
  skipReason?: string,
): void {
  if (skipReason) {
    describe.skip(`event store contract: ${name} — skipped: ${skipReason}`, () => {
      it('runs when its server is available', () => undefined);
    });
    return;
  }

  describe(`event store contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: EventStore;
    // Every test writes under its own prefix, so global-log assertions see only their events.
    const prefix = () => `c${randomUUID().slice(0, 8)}-`;

    beforeAll(async () => {
      subject = await create();
      store = subject.store;
    });
    afterAll(async () => {
      await subject.close();
    });

    describe('optimistic concurrency', () => {
      it('given no stream, when appending with no_stream, then it starts at revision 0', async () => {
        const stream = `${prefix()}s`;
        const result = await store.append(stream, events(3), { expectedRevision: 'no_stream' });
        expect(result.nextRevision).toBe(2n);
        const read = await store.readStream(stream);
        expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
        expect(read.at(-1)?.position).toBe(result.position);
      });

      it('given a stream, when appending with no_stream, then WrongExpectedVersion names the actual revision', async () => {
        const stream = `${prefix()}s`;
        await store.append(stream, events(2), { expectedRevision: 'no_stream' });
        const error = await store
          .append(stream, events(1), { expectedRevision: 'no_stream' })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersion);
        expect((error as WrongExpectedVersion).actual).toBe(1n);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('given no stream, when appending with stream_exists, then it is refused; given one, accepted', async () => {
        const stream = `${prefix()}s`;
        const error = await store
          .append(stream, events(1), { expectedRevision: 'stream_exists' })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersion);
        expect((error as WrongExpectedVersion).actual).toBeNull();
        expect(await store.readStream(stream)).toEqual([]);
        await store.append(stream, events(1), { expectedRevision: 'any' });
        const ok = await store.append(stream, events(1), { expectedRevision: 'stream_exists' });
        expect(ok.nextRevision).toBe(1n);
      });

      it('given a stream at revision 1, when appending at exact revision 1 then 0, then the stale one is refused', async () => {
        const stream = `${prefix()}s`;
        await store.append(stream, events(2), { expectedRevision: 'no_stream' });
        const ok = await store.append(stream, events(1), { expectedRevision: 1n });
        expect(ok.nextRevision).toBe(2n);
        const stale = await store
          .append(stream, events(1), { expectedRevision: 0n })
          .catch((e: unknown) => e);
        expect(stale).toBeInstanceOf(WrongExpectedVersion);
        expect((stale as WrongExpectedVersion).expected).toBe(0n);
        expect((stale as WrongExpectedVersion).actual).toBe(2n);
        const missing = await store
          .append(`${prefix()}none`, events(1), { expectedRevision: 0n })
          .catch((e: unknown) => e);
        expect((missing as WrongExpectedVersion).actual).toBeNull();
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('given any stream state, when appending with any, then it is accepted', async () => {
        const stream = `${prefix()}s`;
        expect(
          (await store.append(stream, events(1), { expectedRevision: 'any' })).nextRevision,
        ).toBe(0n);
        expect(
          (await store.append(stream, events(2), { expectedRevision: 'any' })).nextRevision,
        ).toBe(2n);
      });

      it('given two writers with the same expectation, when both append, then exactly one wins', async () => {
        const stream = `${prefix()}s`;
        await store.append(stream, events(1), { expectedRevision: 'no_stream' });
        const outcomes = await Promise.allSettled(
          Array.from({ length: 6 }, () =>
            store.append(stream, events(1), { expectedRevision: 0n }),
          ),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes.filter((o) => o.status === 'rejected')) {
          expect(o.reason).toBeInstanceOf(WrongExpectedVersion);
        }
        expect(await store.readStream(stream)).toHaveLength(2);
      });
    });

    describe('idempotent re-append', () => {
      it('given an append, when the same ids are appended again at the same revision, then the original result returns and nothing is added', async () => {
        const stream = `${prefix()}s`;
        const batch = events(3);
        const first = await store.append(stream, batch, { expectedRevision: 'no_stream' });
        const again = await store.append(stream, batch, { expectedRevision: 'no_stream' });
        expect(again).toEqual(first);
        const next = events(1);
        const second = await store.append(stream, next, { expectedRevision: 2n });
        expect(await store.append(stream, next, { expectedRevision: 2n })).toEqual(second);
        expect(await store.append(stream, next, { expectedRevision: 'any' })).toEqual(second);
        expect(await store.readStream(stream)).toHaveLength(4);
      });

      it('given stored ids, when one is reused in another stream or beside a new event, then DuplicateEventId and nothing is added', async () => {
        const stream = `${prefix()}s`;
        const batch = events(2);
        await store.append(stream, batch, { expectedRevision: 'no_stream' });
        if (subject.globalEventIds !== false) {
          const elsewhere = await store
            .append(`${prefix()}other`, [batch[0]!], { expectedRevision: 'any' })
            .catch((e: unknown) => e);
          expect(elsewhere).toBeInstanceOf(DuplicateEventId);
        }
        const mixed = await store
          .append(stream, [batch[1]!, newEvent()], { expectedRevision: 'any' })
          .catch((e: unknown) => e);
        expect(mixed).toBeInstanceOf(DuplicateEventId);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('given stored ids, when re-sent with a different exact revision, then WrongExpectedVersion', async () => {
        const stream = `${prefix()}s`;
        const batch = events(1);
        await store.append(stream, events(1), { expectedRevision: 'no_stream' });
        await store.append(stream, batch, { expectedRevision: 0n });
        await store.append(stream, events(1), { expectedRevision: 1n });
        const error = await store
          .append(stream, batch, { expectedRevision: 1n })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedVersion);
      });
    });

    describe('bad input', () => {
      it.each([
        ['an empty stream id', '', [newEvent()]],
        ['a stream id with spaces', 'a b', [newEvent()]],
        ['a reserved $ stream', '$all', [newEvent()]],
        ['no events', 'ok-stream', []],
        ['a non-UUID event id', 'ok-stream', [{ ...newEvent(), id: 'x' }]],
        [
          'an event without actor',
          'ok-stream',
          [{ ...newEvent(), metadata: { ...metadata(), actor: '' } }],
        ],
        ['a bad event type', 'ok-stream', [{ ...newEvent(), type: '9 lives' }]],
        ['a NUL character', 'ok-stream', [newEvent('T', { s: 'a\u0000b' })]],
      ])(
        'given %s, when appending, then InvalidArgument and nothing is written',
        async (_label, stream, batch) => {
          const error = await store
            .append(stream, batch, { expectedRevision: 'any' })
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidArgument);
          expect((error as Error).message.length).toBeGreaterThan(10);
          // Read the stream, not the global log: the log's visible end moves with other
          // transactions on the server, the stream's content does not.
          expect(await store.readStream('ok-stream')).toEqual([]);
        },
      );
    });

    describe('reading', () => {
      it('given a stream, when reading with direction, start revision and count, then the slice is exact', async () => {
        const stream = `${prefix()}s`;
        await store.append(stream, events(10), { expectedRevision: 'no_stream' });
        const revisions = (read: RecordedEvent[]) => read.map((e) => Number(e.revision));
        expect(
          revisions(await store.readStream(stream, { fromRevision: 4n, maxCount: 3 })),
        ).toEqual([4, 5, 6]);
        expect(
          revisions(await store.readStream(stream, { direction: 'backwards', maxCount: 3 })),
        ).toEqual([9, 8, 7]);
        expect(
          revisions(await store.readStream(stream, { direction: 'backwards', fromRevision: 2n })),
        ).toEqual([2, 1, 0]);
        expect(await store.readStream(`${prefix()}missing`)).toEqual([]);
      });

      it('given events, when reading the log both ways from a position with filters, then order and bounds hold', async () => {
        const p = prefix();
        await store.append(`${p}a`, events(3, 'Alpha'), { expectedRevision: 'no_stream' });
        await store.append(`${p}b`, events(2, 'Beta'), { expectedRevision: 'no_stream' });
        await store.append(`${p}a`, events(2, 'Beta'), { expectedRevision: 2n });
        const filter: EventFilter = { streamPrefixes: [p] };
        const forwards = await readAllOnceVisible(store, filter, 7);
        expect(forwards).toHaveLength(7);
        expectStrictlyIncreasing(forwards.map((e) => e.position));
        const backwards = await store.readAll({ filter, direction: 'backwards' });
        expect(backwards.map((e) => e.id)).toEqual(forwards.map((e) => e.id).reverse());
        const after = await store.readAll({
          filter,
          fromPosition: forwards[2]!.position,
          maxCount: 2,
        });
        expect(after.map((e) => e.id)).toEqual(forwards.slice(3, 5).map((e) => e.id));
        const before = await store.readAll({
          filter,
          direction: 'backwards',
          fromPosition: forwards[2]!.position,
        });
        expect(before.map((e) => e.id)).toEqual(
          forwards
            .slice(0, 2)
            .map((e) => e.id)
            .reverse(),
        );
        const betas = await store.readAll({
          filter: { streamPrefixes: [p], eventTypes: ['Beta'] },
        });
        expect(betas.map((e) => e.type)).toEqual(['Beta', 'Beta', 'Beta', 'Beta']);
        expect(await store.readAll({ filter: { streamPrefixes: [`${p}b`] } })).toHaveLength(2);
      });

      it('given streams, when the log is read by stream partition, then the partitions are disjoint, cover the filter and keep each stream whole and in order', async () => {
        const p = prefix();
        for (let i = 0; i < 12; i += 1) {
          await store.append(`${p}${i}`, events(1 + (i % 3)), { expectedRevision: 'no_stream' });
        }
        const filter: EventFilter = { streamPrefixes: [p] };
        const all = await readAllOnceVisible(store, filter, 24);
        const parts = await Promise.all(
          [0, 1, 2].map((index) =>
            store.readAll({ filter: { ...filter, partition: { count: 3, index } } }),
          ),
        );
        const ids = parts.flat().map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(all.map((e) => e.id)));
        const owners = new Map<string, number>();
        parts.forEach((part, index) => {
          expectStrictlyIncreasing(part.map((e) => e.position));
          for (const event of part) {
            expect(owners.get(event.streamId) ?? index).toBe(index);
            owners.set(event.streamId, index);
          }
        });
        // Twelve streams over three partitions: a hash that sent all to one would be no split.
        expect(parts.filter((part) => part.length > 0).length).toBeGreaterThan(1);
        expect(
          await store.readAll({ filter: { ...filter, partition: { count: 1, index: 0 } } }),
        ).toHaveLength(all.length);
      });

      it.each([
        [{ count: 0, index: 0 }, /count must be an integer from 1 to 64/],
        [{ count: 65, index: 0 }, /count must be an integer from 1 to 64/],
        [{ count: 2, index: 2 }, /index must be an integer from 0 to 1/],
        [{ count: 2, index: -1 }, /index must be an integer from 0 to 1/],
        [{ count: 1.5, index: 0 }, /count must be an integer/],
      ])(
        'given partition %o, when reading the log, then InvalidArgument says what is allowed',
        async (partition, message) => {
          const error = await store.readAll({ filter: { partition } }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(InvalidArgument);
          expect((error as Error).message).toMatch(message);
        },
      );

      it('given appends, when asked, then lastPosition is the newest event’s position', async () => {
        const p = prefix();
        await store.append(`${p}a`, events(2), { expectedRevision: 'no_stream' });
        const newest = await store.append(`${p}b`, events(1), { expectedRevision: 'no_stream' });
        expect(await store.lastPosition()).toBe(newest.position);
        expect(await settleLog(store)).toBe(true);
      });

      it('given an event, when read back, then data, metadata and chain fields are what was appended', async () => {
        const stream = `${prefix()}s`;
        const event = newEvent('Shaped', {
          nested: { list: [1, 2.5, 'x', null, true] },
          unicode: 'Grüße ✓',
        });
        // A second event of multi-byte text in the same append: each lands with its own bytes.
        const wide = newEvent('Shaped', { text: '🚀 中文 — "quoted" \\ \n end' });
        await store.append(stream, [event, wide], { expectedRevision: 'no_stream' });
        const [read, second] = await store.readStream(stream);
        expect(read).toMatchObject({
          id: event.id,
          type: 'Shaped',
          data: event.data,
          metadata: event.metadata,
          prevHash: null,
        });
        expect(read?.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(second).toMatchObject({ id: wide.id, data: wide.data, prevHash: read?.hash });
        expect(findChainBreak([read!, second!])).toBeNull();
      });
    });

    describe('subscriptions', () => {
      it('given history, when subscribing, then it catches up, reports it, and follows new events', async () => {
        const p = prefix();
        await store.append(`${p}s`, events(5), { expectedRevision: 'no_stream' });
        let caughtUp = false;
        const received: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({
          filter: { streamPrefixes: [p] },
          onCaughtUp: () => {
            caughtUp = true;
            void store.append(`${p}s`, events(3), { expectedRevision: 4n });
          },
        });
        for await (const event of subscription) {
          received.push(event);
          if (received.length === 8) break;
        }
        await subscription.close();
        expect(caughtUp).toBe(true);
        expect(received.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
      });

      it('given a checkpoint, when a subscription restarts from it, then it resumes with the next event exactly once', async () => {
        const p = prefix();
        await store.append(`${p}s`, events(10), { expectedRevision: 'no_stream' });
        const filter = { streamPrefixes: [p] };
        const firstRun = await collect(store, { filter }, 4);
        const checkpoint = firstRun.at(-1)!.position;
        const secondRun = await collect(store, { filter, fromPosition: checkpoint }, 6);
        expect([...firstRun, ...secondRun].map((e) => e.revision)).toEqual(
          Array.from({ length: 10 }, (_, i) => BigInt(i)),
        );
      });

      it('given a subscription, when it is aborted, then iteration ends', async () => {
        const controller = new AbortController();
        const subscription = store.subscribeToAll({
          filter: { streamPrefixes: [prefix()] },
          signal: controller.signal,
        });
        setTimeout(() => {
          controller.abort();
        }, 50);
        const seen: RecordedEvent[] = [];
        for await (const event of subscription) seen.push(event);
        expect(seen).toEqual([]);
      });
    });

    describe('global order under concurrency', () => {
      /** Two transactions open at once, under a fresh prefix; skips where the store has none. */
      const slowAndFast = async (context: {
        skip: (note: string) => void;
      }): Promise<{ p: string; slow: OpenTransaction; fast: OpenTransaction } | undefined> => {
        if (!subject.concurrentTransactions || !subject.openTransaction) {
          context.skip(`${name} cannot hold two transactions open at once`);
          return undefined;
        }
        return {
          p: prefix(),
          slow: await subject.openTransaction(),
          fast: await subject.openTransaction(),
        };
      };

      it('given a transaction still open, when a later one commits, then subscribers see neither until the first commits, then both in order', async (context) => {
        const open = await slowAndFast(context);
        if (!open) return;
        const { p, slow, fast } = open;
        const received: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ filter: { streamPrefixes: [p] } });
        const reading = (async () => {
          for await (const event of subscription) received.push(event);
        })();
        await slow.append(`${p}slow`, [newEvent('Slow')], { expectedRevision: 'no_stream' });
        await fast.append(`${p}fast`, [newEvent('Fast')], { expectedRevision: 'no_stream' });
        await fast.commit();
        await sleep(300);
        expect(received).toEqual([]);
        await slow.commit();
        for (let waited = 0; received.length < 2 && waited < 5_000; waited += 20) await sleep(20);
        await subscription.close();
        await reading;
        expect(received.map((e) => e.type)).toEqual(['Slow', 'Fast']);
      });

      it('given a transaction still open, when a later one commits, then lastPosition names the later event at once and settleLog waits for the first', async (context) => {
        const open = await slowAndFast(context);
        if (!open) return;
        const { p, slow, fast } = open;
        await slow.append(`${p}slow`, [newEvent('Slow')], { expectedRevision: 'no_stream' });
        const late = await fast.append(`${p}fast`, [newEvent('Fast')], {
          expectedRevision: 'no_stream',
        });
        await fast.commit();
        expect(await store.lastPosition()).toBe(late.position);
        expect(await settleLog(store, { timeoutMs: 200 })).toBe(false);
        const settled = settleLog(store);
        await sleep(100);
        await slow.commit();
        expect(await settled).toBe(true);
        const seen = await store.readAll({ filter: { streamPrefixes: [p] } });
        expect(seen.map((e) => e.type)).toEqual(['Slow', 'Fast']);
      });

      it('given a rolled-back transaction, then none of its events is ever read', async (context) => {
        if (!subject.openTransaction) {
          context.skip(`${name} has no client-visible transactions`);
          return;
        }
        const p = prefix();
        const tx = await subject.openTransaction();
        await tx.append(`${p}s`, events(2), { expectedRevision: 'no_stream' });
        await tx.rollback();
        await store.append(`${p}t`, events(1), { expectedRevision: 'no_stream' });
        const seen = await collect(store, { filter: { streamPrefixes: [p] } }, 1);
        expect(seen.map((e) => e.streamId)).toEqual([`${p}t`]);
        expect(await store.readStream(`${p}s`)).toEqual([]);
      });

      it('given 8 writers whose commits land out of order, when 20,000 events are appended under a running subscriber, then it receives each exactly once in position order', async () => {
        const p = prefix();
        const writers = 8;
        const perWriter = 2_500;
        const batch = 10;
        const total = writers * perWriter;
        const subscriberDone = collect(store, { filter: { streamPrefixes: [p] } }, total, 110_000);
        const appended = new Set<string>();
        const commitOrder: Position[] = [];
        const writer = async (w: number): Promise<void> => {
          const revisions = new Map<string, bigint>();
          for (let i = 0; i < perWriter / batch; i += 1) {
            const stream = `${p}w${w}-${i % 4}`;
            const expected: AppendOptions['expectedRevision'] =
              revisions.get(stream) ?? 'no_stream';
            const chunk = events(batch, 'Load');
            let result: AppendResult;
            if (subject.openTransaction && subject.concurrentTransactions) {
              // Hold every third transaction open a little so later ones commit first.
              const tx = await subject.openTransaction();
              result = await tx.append(stream, chunk, { expectedRevision: expected });
              if (i % 3 === 0) await sleep(1 + ((w * 7 + i) % 5));
              await tx.commit();
            } else {
              result = await store.append(stream, chunk, { expectedRevision: expected });
            }
            commitOrder.push(result.position);
            revisions.set(stream, result.nextRevision);
            for (const event of chunk) appended.add(event.id);
          }
        };
        await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
        const received = await subscriberDone;
        expect(appended.size).toBe(total);
        expect(received).toHaveLength(total);
        expect(new Set(received.map((e) => e.id))).toEqual(appended);
        expectStrictlyIncreasing(received.map((e) => e.position));
        if (subject.concurrentTransactions && subject.openTransaction) {
          // The scenario really happened: some transaction committed after a later position.
          const inversions = commitOrder.filter(
            (pos, i) => i > 0 && comparePositions(pos, commitOrder[i - 1]!) < 0,
          );
          expect(inversions.length).toBeGreaterThan(0);
        }
      });
    });

    describe('hash chain', () => {
      it('given many writers appending to one stream with any, then revisions are gap-free and every link holds', async () => {
        const stream = `${prefix()}shared`;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            for (let i = 0; i < 40; i += 1)
              await store.append(stream, events(2), { expectedRevision: 'any' });
          }),
        );
        const read = await store.readStream(stream, { maxCount: 10_000 });
        expect(read).toHaveLength(640);
        expect(findChainBreak(read)).toBeNull();
        expect(read[1]?.prevHash).toBe(read[0]?.hash);
      });

      it('given a chain, when an event is altered in memory, then the break is found at that revision', async () => {
        const stream = `${prefix()}s`;
        await store.append(stream, events(5), { expectedRevision: 'no_stream' });
        const read = await store.readStream(stream);
        const altered = read.map((e, i) =>
          i === 3 ? { ...e, content: e.content.replace('"data":{', '"data":{"i":99,') } : e,
        );
        expect(findChainBreak(altered)).toMatchObject({ streamId: stream, revision: 3n });
      });
    });
  });
}
