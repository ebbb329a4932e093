import { randomUUID } from 'node:crypto';
import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../../services/audit/verify.js';
import { createEsdbEventStore } from '../../../services/event-store/esdb/adapter.js';
import {
  chainHash,
  contentHash,
  eventContent,
  sha256Hex,
} from '../../../services/event-store/hash-chain.js';
import type { EventStore, EventToAppend } from '../../../services/event-store/types.js';
import { startEsdbDouble, type EsdbDouble } from '../../support/esdb-double/index.js';

/**
 * On EventStoreDB the adapter stores the exact bytes an event's hash covers (its RFC 8785
 * content) and reads them back as they are: what the double holds is the hashed text, `verify`
 * hashes what is stored, and a byte changed in the store is named. Events written the earlier
 * way (JSON data, the chain in the metadata) still read and verify.
 */
const metadata = () => ({
  actor: 'agent:canonical',
  correlationId: randomUUID(),
  causationId: randomUUID(),
  at: '2026-02-01T10:00:00.000+01:00',
});

/** Values a re-encoding would change: number forms, escapes, key order beyond ASCII. */
const AWKWARD: readonly unknown[] = [
  { numbers: [1e21, 1e-7, 0.1 + 0.2, 5e-324, 2 ** 53 + 2] },
  { text: 'quote " backslash \\ bell \u0007 line \u2028 emoji 😀', '\uFB33': 1, é: 2, a: 3 },
  [1, 'two', [3], { z: 1, a: { y: [], b: null } }],
];

const events = (): EventToAppend[] =>
  AWKWARD.map((data, n) => ({
    id: randomUUID(),
    type: n === 0 ? 'ThingMade' : 'ThingChanged',
    data,
    metadata: metadata(),
  }));

let double: EsdbDouble;
let store: EventStore;
let client: EventStoreDBClient;

beforeAll(async () => {
  double = await startEsdbDouble();
  store = createEsdbEventStore({ connectionString: double.url });
  client = EventStoreDBClient.connectionString(double.url);
});

afterAll(async () => {
  await store.close();
  await client.dispose();
  await double.close();
  expect(double.violations).toEqual([]);
});

const streamName = (): string => `canon-${randomUUID()}`;

describe('esdb adapter: stored bytes are the hashed bytes', () => {
  it('given events appended, when the double is inspected, then each event holds its canonical content, byte for byte, and the chain covers those bytes', async () => {
    const streamId = streamName();
    const appended = events();
    await store.append(streamId, appended, { expectedRevision: 'no_stream' });

    const records = double.log.all().filter((record) => record.streamId === streamId);
    expect(records).toHaveLength(appended.length);
    let prevHash: string | null = null;
    for (const [n, record] of records.entries()) {
      const event = appended[n];
      if (!event) throw new Error('missing event');
      const content = eventContent(streamId, event);
      expect(record.contentType).toBe('application/octet-stream');
      expect(Buffer.from(record.data).toString('utf8')).toBe(content);
      const link = JSON.parse(Buffer.from(record.metadata).toString('utf8')) as unknown;
      const hash = chainHash(prevHash, BigInt(n), sha256Hex(content));
      expect(link).toEqual({ prevHash, hash });
      prevHash = hash;
    }
  });

  it('given events appended, when read back (stream and $all), then content is the stored bytes and data and metadata are what was appended', async () => {
    const streamId = streamName();
    const appended = events();
    await store.append(streamId, appended, { expectedRevision: 'no_stream' });
    const stored = double.log
      .all()
      .filter((record) => record.streamId === streamId)
      .map((record) => Buffer.from(record.data).toString('utf8'));

    const fromStream = await store.readStream(streamId);
    const fromAll = (await store.readAll({ filter: { streamPrefixes: [streamId] } })).filter(
      (event) => event.streamId === streamId,
    );
    for (const read of [fromStream, fromAll]) {
      expect(read.map((event) => event.content)).toEqual(stored);
      expect(read.map((event) => event.data)).toEqual(appended.map((event) => event.data));
      expect(read.map((event) => event.metadata)).toEqual(appended.map((event) => event.metadata));
    }
  });

  it('given a replayed append (same ids, same content), when appended again, then it is found by its stored content, not repeated', async () => {
    const streamId = streamName();
    const appended = events();
    const first = await store.append(streamId, appended, { expectedRevision: 'no_stream' });
    const again = await store.append(streamId, appended, { expectedRevision: 'no_stream' });
    expect(again).toEqual(first);
    expect(await store.readStream(streamId)).toHaveLength(appended.length);
  });

  it('given the log intact, when verified, then it passes; given one stored byte changed, then verify names that event', async () => {
    const streamId = streamName();
    await store.append(streamId, events(), { expectedRevision: 'no_stream' });
    const intact = await verifyLog({ eventStore: store });
    expect(intact.problem).toBeNull();
    expect(intact.ok).toBe(true);

    // A change a re-rendering reader could not see: `1e+21` written as `1E+21` parses to the
    // same value, so only hashing the stored bytes notices.
    const record = double.log.all().find((r) => r.streamId === streamId && r.revision === 0n);
    if (!record) throw new Error('no record');
    const text = Buffer.from(record.data).toString('utf8');
    const at = text.indexOf('1e+21');
    expect(at).toBeGreaterThan(0);
    const original = record.data[at + 1];
    record.data[at + 1] = 'E'.charCodeAt(0);
    try {
      const reread = await store.readStream(streamId, { maxCount: 1 });
      expect(reread[0]?.data).toEqual(AWKWARD[0]);
      const report = await verifyLog({ eventStore: store });
      expect(report.ok).toBe(false);
      expect(report.problem).toMatchObject({ streamId, revision: 0 });
      expect(report.problem?.reason).toMatch(/altered/);
    } finally {
      if (original !== undefined) record.data[at + 1] = original;
    }
    expect((await verifyLog({ eventStore: store })).ok).toBe(true);
  });

  it('given a stream written the earlier way (JSON data, the chain in the metadata), when read and verified, then it still holds', async () => {
    const streamId = streamName();
    let prevHash: string | null = null;
    const earlier = events().map((event, n) => {
      const hash = chainHash(prevHash, BigInt(n), contentHash(streamId, event));
      const written = jsonEvent({
        id: event.id,
        type: event.type,
        data: event.data as Record<string, unknown>,
        metadata: { ...event.metadata, prevHash, hash },
      });
      prevHash = hash;
      return { event, written };
    });
    await client.appendToStream(
      streamId,
      earlier.map((item) => item.written),
    );
    const read = await store.readStream(streamId);
    expect(read.map((event) => event.data)).toEqual(earlier.map((item) => item.event.data));
    expect(read.map((event) => event.content)).toEqual(
      earlier.map((item) => eventContent(streamId, item.event)),
    );
    expect((await verifyLog({ eventStore: store })).ok).toBe(true);
    // The next append continues the chain in the new form.
    await store.append(streamId, events().slice(0, 1), { expectedRevision: 2n });
    const continued = await store.readStream(streamId);
    expect(continued).toHaveLength(4);
    expect(continued[3]?.prevHash).toBe(continued[2]?.hash);
    expect((await verifyLog({ eventStore: store })).ok).toBe(true);
  });
});
