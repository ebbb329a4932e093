import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  STREAM_EXISTS,
  jsonEvent,
  type AppendExpectedRevision,
  type EventData,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEsdbDouble, type EsdbDouble } from '../../support/esdb-double/index.js';

/**
 * The double against EventStoreDB's documented behaviour, through the official client: expected
 * revisions, idempotent appends, reads of streams and `$all`, deletion. Each case runs with
 * both append paths: BatchAppend (what the client picks when ServerFeatures lists it, as 21.10+
 * servers do) and Append (servers without it).
 */
const collect = async (reads: AsyncIterable<ResolvedEvent>): Promise<ResolvedEvent[]> => {
  const events: ResolvedEvent[] = [];
  for await (const event of reads) events.push(event);
  return events;
};

const failureOf = (promise: Promise<unknown>): Promise<Record<string, unknown>> =>
  promise.then(
    () => expect.fail('expected the call to fail'),
    (error: unknown) => error as Record<string, unknown>,
  );

const event = (n = 0) => jsonEvent({ type: 'Counted', data: { n } });

let unique = 0;
const streamName = (): string => `thing-${String((unique += 1))}-${Date.now().toString(36)}`;

describe.each([
  ['BatchAppend', 'current'],
  ['Append', 'none'],
] as const)('EventStoreDB double, appending with %s', (path, features) => {
  let double: EsdbDouble;
  let client: EventStoreDBClient;

  beforeAll(async () => {
    double = await startEsdbDouble({ features });
    client = EventStoreDBClient.connectionString(double.url);
  });
  afterAll(async () => {
    await client.dispose();
    await double.close();
    expect(double.violations).toEqual([]);
    expect(double.calls[`Streams.${path}`]).toBeGreaterThan(0);
  });

  const append = (stream: string, events: EventData[], expected: AppendExpectedRevision) =>
    client.appendToStream(stream, events, { expectedRevision: expected });

  describe('expected revision', () => {
    it('given no stream, when appending with no_stream, then revisions start at 0 and the position is that of the last event', async () => {
      const stream = streamName();
      const result = await append(stream, [event(0), event(1), event(2)], NO_STREAM);
      expect(result.nextExpectedRevision).toBe(2n);
      const read = await collect(client.readStream(stream));
      expect(read.map((e) => e.event?.revision)).toEqual([0n, 1n, 2n]);
      expect(read.at(-1)?.event?.position).toEqual(result.position);
    });

    it.each([
      ['no_stream on an existing stream', NO_STREAM, 'no_stream', 1n],
      ['a stale exact revision', 0n, 0n, 1n],
      ['a revision beyond the end', 5n, 5n, 1n],
    ] as const)(
      'given a stream at revision 1, when appending with %s, then WrongExpectedVersion names the expected and the actual revision',
      async (_label, expected, reported, actual) => {
        const stream = streamName();
        await append(stream, [event(), event()], NO_STREAM);
        const error = await failureOf(append(stream, [event()], expected));
        expect(error).toMatchObject({
          type: 'wrong-expected-version',
          streamName: stream,
          expectedVersion: reported,
          actualVersion: actual,
        });
        expect(await collect(client.readStream(stream))).toHaveLength(2);
      },
    );

    it('given no stream, when appending with stream_exists, then it is refused with no_stream as the actual state; with any, accepted', async () => {
      const stream = streamName();
      const error = await failureOf(append(stream, [event()], STREAM_EXISTS));
      expect(error).toMatchObject({ expectedVersion: 'stream_exists', actualVersion: 'no_stream' });
      expect((await append(stream, [event()], ANY)).nextExpectedRevision).toBe(0n);
      expect((await append(stream, [event()], STREAM_EXISTS)).nextExpectedRevision).toBe(1n);
    });
  });

  describe('idempotence', () => {
    it.each([
      ['no_stream', NO_STREAM],
      ['any', ANY],
    ] as const)(
      'given an append, when the same events are appended again with %s, then the original result returns and nothing is added',
      async (_label, expected) => {
        const stream = streamName();
        const batch = [event(0), event(1)];
        const first = await append(stream, batch, NO_STREAM);
        const again = await append(stream, batch, expected);
        expect(again).toEqual(first);
        expect(await collect(client.readStream(stream))).toHaveLength(2);
      },
    );

    it('given stored events, when a batch repeats only part of them, then WrongExpectedVersion and nothing is added', async () => {
      const stream = streamName();
      const batch = [event(0), event(1)];
      await append(stream, batch, NO_STREAM);
      for (const expected of [NO_STREAM, ANY] as const) {
        const error = await failureOf(append(stream, [batch[0]!, event(2)], expected));
        expect(error).toMatchObject({ type: 'wrong-expected-version' });
      }
      expect(await collect(client.readStream(stream))).toHaveLength(2);
    });

    it('given an event id used in one stream, when it is appended to another, then it is a new event there (idempotence is per stream)', async () => {
      const reused = event();
      await append(streamName(), [reused], NO_STREAM);
      const other = streamName();
      await append(other, [reused], NO_STREAM);
      expect(await collect(client.readStream(other))).toHaveLength(1);
    });
  });

  describe('reading', () => {
    it('given ten events, when a stream is read with a start revision, direction and count, then the slice is exact', async () => {
      const stream = streamName();
      await append(
        stream,
        Array.from({ length: 10 }, (_, n) => event(n)),
        NO_STREAM,
      );
      const revisions = async (options: Parameters<EventStoreDBClient['readStream']>[1]) =>
        (await collect(client.readStream(stream, options))).map((e) => Number(e.event?.revision));
      expect(await revisions({ fromRevision: 4n, maxCount: 3 })).toEqual([4, 5, 6]);
      expect(await revisions({ direction: BACKWARDS, fromRevision: END, maxCount: 3 })).toEqual([
        9, 8, 7,
      ]);
      expect(await revisions({ direction: BACKWARDS, fromRevision: 2n })).toEqual([2, 1, 0]);
      expect(await revisions({ fromRevision: 10n })).toEqual([]);
      const missing = await failureOf(collect(client.readStream(streamName())));
      expect(missing).toMatchObject({ type: 'stream-not-found' });
    });

    it('given events in two streams, when $all is read, then positions increase but are not consecutive, system events are there too, and a position bound is inclusive forwards and exclusive backwards', async () => {
      const [a, b] = [streamName(), streamName()];
      await append(a, [event(0)], NO_STREAM);
      await append(b, [event(1)], NO_STREAM);
      await append(a, [event(2)], 0n);
      const all = await collect(client.readAll({ maxCount: 100_000 }));
      const positions = all.map((e) => e.event!.position!.commit);
      expect(positions).toEqual([...positions].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
      expect(new Set(positions.slice(1).map((p, i) => p - positions[i]!)).has(1n)).toBe(false);
      expect(all.some((e) => e.event?.type.startsWith('$'))).toBe(true);
      const ours = all.filter((e) => e.event?.streamId === a || e.event?.streamId === b);
      expect(ours.map((e) => e.event?.data)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
      const middle = ours[1]!.event!.position!;
      const forwards = await collect(client.readAll({ fromPosition: middle, maxCount: 1 }));
      expect(forwards[0]?.event?.id).toBe(ours[1]!.event!.id);
      const backwards = await collect(
        client.readAll({ fromPosition: middle, direction: BACKWARDS, maxCount: 1 }),
      );
      expect(backwards[0]?.event?.position?.commit).toBeLessThan(middle.commit);
    });

    it('given a position inside a record, when $all is read from it, then the server refuses it', async () => {
      const stream = streamName();
      const { position } = await append(stream, [event()], NO_STREAM);
      const inside = { commit: position!.commit + 1n, prepare: position!.prepare + 1n };
      const error = await failureOf(collect(client.readAll({ fromPosition: inside, maxCount: 1 })));
      expect(String(error.message)).toContain('invalid position');
    });
  });

  describe('deletion', () => {
    it('given a soft-deleted stream, when read it is not found, $all still has its events, and an append continues where it left off', async () => {
      const stream = streamName();
      const { position } = await append(stream, [event(0), event(1)], NO_STREAM);
      await client.deleteStream(stream);
      expect(await failureOf(collect(client.readStream(stream)))).toMatchObject({
        type: 'stream-not-found',
      });
      const inAll = await collect(client.readAll({ fromPosition: position!, maxCount: 1 }));
      expect(inAll[0]?.event?.streamId).toBe(stream);
      const reopened = await append(stream, [event(2)], NO_STREAM);
      expect(reopened.nextExpectedRevision).toBe(2n);
      expect((await collect(client.readStream(stream))).map((e) => e.event?.revision)).toEqual([
        2n,
      ]);
    });

    it('given a tombstoned stream, when it is read or appended to, then StreamDeleted', async () => {
      const stream = streamName();
      await append(stream, [event()], NO_STREAM);
      await client.tombstoneStream(stream);
      expect(await failureOf(collect(client.readStream(stream)))).toMatchObject({
        type: 'stream-deleted',
        streamName: stream,
      });
      expect(await failureOf(append(stream, [event()], ANY))).toMatchObject({
        type: 'stream-deleted',
      });
    });
  });

  it('given an append larger than the maximum append size, then it is refused and nothing is written', async () => {
    const stream = streamName();
    const big = jsonEvent({ type: 'Big', data: { blob: 'x'.repeat(1_100_000) } });
    const error = await failureOf(append(stream, [big], NO_STREAM));
    expect(error).toMatchObject({ type: 'maximum-append-size-exceeded' });
    expect(await failureOf(collect(client.readStream(stream)))).toMatchObject({
      type: 'stream-not-found',
    });
  });
});
