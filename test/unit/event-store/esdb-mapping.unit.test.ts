import {
  ANY,
  EVENT_TYPE,
  NO_STREAM,
  STREAM_EXISTS,
  STREAM_NAME,
  AccessDeniedError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  StreamDeletedError,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  type PrefixesFilter,
  type RegexFilter,
} from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { CogitaveError, InvalidArgument, Unavailable } from '../../../services/runtime/errors.js';
import { DuplicateEventId, WrongExpectedVersion } from '../../../services/event-store/errors.js';
import {
  chainHash,
  contentHash,
  eventContent,
  sha256Hex,
} from '../../../services/event-store/hash-chain.js';
import {
  assertNoHashKeys,
  findReplay,
  fromClientCurrentRevision,
  fromClientEvent,
  fromClientExpectedRevision,
  isStreamNotFound,
  isSystemEvent,
  toClientExpectedRevision,
  toClientPosition,
  toCogitaveError,
  toEventData,
  streamHash,
  toFilterPlan,
  toPosition,
  type ClientRecordedEventLike,
} from '../../../services/event-store/esdb/mapping.js';
import type { EventToAppend, RecordedEvent } from '../../../services/event-store/types.js';

const metadata = {
  actor: 'user:ada',
  correlationId: 'c-1',
  causationId: 'c-1',
  at: '2024-05-01T10:00:00.000Z',
};

const event = (id: string, data: unknown = { n: 1 }): EventToAppend => ({
  id,
  type: 'TaskOpened',
  data,
  metadata,
});

const clientEvent = (
  overrides: Partial<ClientRecordedEventLike> = {},
): ClientRecordedEventLike => ({
  streamId: 'task-1',
  id: '00000000-0000-4000-8000-000000000001',
  revision: 3n,
  type: 'TaskOpened',
  isJson: true,
  data: { title: 'write tests' },
  metadata: { ...metadata, tenant: 'acme', prevHash: 'aa', hash: 'bb' },
  position: { commit: 42n, prepare: 41n },
  ...overrides,
});

/** Records `events` as the adapter would have written them, from revision `from` on. */
const recorded = (
  streamId: string,
  events: readonly EventToAppend[],
  from = 0n,
): RecordedEvent[] => {
  let prevHash: string | null = null;
  return events.map((item, index) => {
    const revision = from + BigInt(index);
    const hash = chainHash(prevHash, revision, contentHash(streamId, item));
    const result: RecordedEvent = {
      ...item,
      streamId,
      revision,
      position: toPosition({ commit: 100n + revision, prepare: 100n + revision }),
      content: eventContent(streamId, item),
      prevHash,
      hash,
    };
    prevHash = hash;
    return result;
  });
};

describe('esdb mapping: revisions', () => {
  it('given each expected revision, when mapped to the client, then named ones become constants and numbers stay', () => {
    expect(toClientExpectedRevision('any')).toBe(ANY);
    expect(toClientExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toClientExpectedRevision('stream_exists')).toBe(STREAM_EXISTS);
    expect(toClientExpectedRevision(7n)).toBe(7n);
  });

  it('given a client expected revision, when mapped back, then it round-trips', () => {
    for (const expected of ['any', 'no_stream', 'stream_exists', 0n, 12n] as const) {
      expect(fromClientExpectedRevision(toClientExpectedRevision(expected))).toBe(expected);
    }
  });

  it('given the client current revision, when mapped, then no_stream is null and a number stays', () => {
    expect(fromClientCurrentRevision(NO_STREAM)).toBeNull();
    expect(fromClientCurrentRevision(5n)).toBe(5n);
  });
});

describe('esdb mapping: positions', () => {
  it('given a commit/prepare pair, when encoded and decoded, then it round-trips', () => {
    const position = { commit: 123_456_789_012n, prepare: 123_456_789_000n };
    expect(toClientPosition(toPosition(position))).toEqual(position);
  });

  it('given the largest positions, when encoded, then they round-trip', () => {
    const max = (1n << 64n) - 2n;
    expect(toClientPosition(toPosition({ commit: max, prepare: max }))).toEqual({
      commit: max,
      prepare: max,
    });
  });

  it('given positions in log order, when their encodings are compared as strings, then the order holds', () => {
    const ordered = [
      { commit: 0n, prepare: 0n },
      { commit: 9n, prepare: 9n },
      { commit: 10n, prepare: 2n },
      { commit: 10n, prepare: 10n },
      { commit: 4096n, prepare: 15n },
      { commit: 1n << 40n, prepare: 0n },
    ].map(toPosition);
    expect([...ordered].reverse().sort()).toEqual(ordered);
  });
});

describe('esdb mapping: events', () => {
  it('given an event, its content and its chain link, when mapped to event data, then the data are the content bytes and the hashes the metadata', () => {
    const item = event('00000000-0000-4000-8000-00000000000a');
    const content = eventContent('task-1', item);
    const data = toEventData(item, { prevHash: null, hash: 'h0' }, content);
    expect(data).toMatchObject({
      id: '00000000-0000-4000-8000-00000000000a',
      contentType: 'application/octet-stream',
      type: 'TaskOpened',
      metadata: { prevHash: null, hash: 'h0' },
    });
    expect(Buffer.from(data.data as Uint8Array).toString('utf8')).toBe(content);
  });

  it('given caller metadata using a reserved hash key, when mapped to event data, then it is refused', () => {
    const clash = {
      ...event('00000000-0000-4000-8000-00000000000a'),
      metadata: { ...metadata, hash: 'mine' },
    };
    expect(() => toEventData(clash, { prevHash: null, hash: 'h0' }, '{}')).toThrow(InvalidArgument);
    const reserved = { ...clash, metadata: { ...metadata, prevHash: null } };
    expect(() => {
      assertNoHashKeys(reserved);
    }).toThrow(/reserved/);
    expect(() => {
      assertNoHashKeys(event('00000000-0000-4000-8000-00000000000a'));
    }).not.toThrow();
  });

  it('given a stored binary event, when mapped, then content is the stored bytes, unchanged, and data and metadata come from it', () => {
    // Not canonical on purpose (key order, spacing, an escape): a read must not re-render.
    const content =
      '{"metadata":{"actor":"user:ada","tenant":"acme"}, "type":"TaskOpened","streamId":"task-1","id":"00000000-0000-4000-8000-000000000001","data":{"title":"write \\u0074ests","n":1.50}}';
    const mapped = fromClientEvent(
      clientEvent({
        isJson: false,
        data: new TextEncoder().encode(content),
        metadata: { prevHash: 'aa', hash: 'bb' },
      }),
    );
    expect(mapped).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      streamId: 'task-1',
      revision: 3n,
      position: toPosition({ commit: 42n, prepare: 41n }),
      type: 'TaskOpened',
      data: { title: 'write tests', n: 1.5 },
      metadata: { actor: 'user:ada', tenant: 'acme' },
      content,
      prevHash: 'aa',
      hash: 'bb',
    });
  });

  it('given a JSON event written before events kept their content, when mapped, then the hash fields leave the metadata and the content is rendered', () => {
    const mapped = fromClientEvent(clientEvent());
    expect(mapped).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      streamId: 'task-1',
      revision: 3n,
      position: toPosition({ commit: 42n, prepare: 41n }),
      type: 'TaskOpened',
      data: { title: 'write tests' },
      metadata: { ...metadata, tenant: 'acme' },
      content: eventContent('task-1', {
        id: '00000000-0000-4000-8000-000000000001',
        type: 'TaskOpened',
        data: { title: 'write tests' },
        metadata: { ...metadata, tenant: 'acme' },
      }),
      prevHash: 'aa',
      hash: 'bb',
    });
  });

  it('given the first event of a stream, when mapped, then prevHash is null', () => {
    const mapped = fromClientEvent(
      clientEvent({ revision: 0n, metadata: { ...metadata, prevHash: null, hash: 'h0' } }),
    );
    expect(mapped.prevHash).toBeNull();
    expect(mapped.revision).toBe(0n);
  });

  it('given event data written and read back, when mapped, then the stored bytes are the hashed ones and the chain recomputes', () => {
    const item = event('00000000-0000-4000-8000-00000000000b', [1, 'two', null, 1e21]);
    const content = eventContent('task-1', item);
    const hash = chainHash(null, 0n, sha256Hex(content));
    const written = toEventData(item, { prevHash: null, hash }, content);
    const read = fromClientEvent(
      clientEvent({
        id: written.id,
        revision: 0n,
        isJson: false,
        data: written.data,
        metadata: written.metadata,
      }),
    );
    expect(read.content).toBe(content);
    expect(read.data).toEqual(item.data);
    expect(read.metadata).toEqual(item.metadata);
    expect(chainHash(read.prevHash, read.revision, sha256Hex(read.content))).toBe(read.hash);
  });

  it('given events not written by Cogitave, when mapped, then they are refused', () => {
    expect(() => fromClientEvent(clientEvent({ isJson: false }))).toThrow(/no stored content/);
    const bytes = (text: string) => new TextEncoder().encode(text);
    const link = { prevHash: null, hash: 'h0' };
    expect(() =>
      fromClientEvent(clientEvent({ isJson: false, data: bytes('not json'), metadata: link })),
    ).toThrow(/no JSON content/);
    expect(() =>
      fromClientEvent(clientEvent({ isJson: false, data: bytes('[1]'), metadata: link })),
    ).toThrow(/no event content/);
    expect(() =>
      fromClientEvent(clientEvent({ isJson: false, data: Uint8Array.of(0xff), metadata: link })),
    ).toThrow(CogitaveError);
    expect(() => fromClientEvent(clientEvent({ metadata: undefined }))).toThrow(/no metadata/);
    expect(() => fromClientEvent(clientEvent({ metadata: metadata }))).toThrow(/no hash chain/);
  });

  it('given an event without an $all position (server before 22.6), when mapped, then it is refused', () => {
    expect(() => fromClientEvent(clientEvent({ position: undefined }))).toThrow(/22\.6/);
    const unknown = (1n << 64n) - 1n;
    expect(() =>
      fromClientEvent(clientEvent({ position: { commit: unknown, prepare: unknown } })),
    ).toThrow(/22\.6/);
  });

  it('given system streams and event types, when checked, then only $-prefixed ones are system events', () => {
    expect(isSystemEvent({ streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' })).toBe(
      true,
    );
    expect(isSystemEvent({ streamId: 'task-1', type: '$>' })).toBe(true);
    expect(isSystemEvent({ streamId: '$$task-1', type: 'x' })).toBe(true);
    expect(isSystemEvent({ streamId: 'task-1', type: 'TaskOpened' })).toBe(false);
  });
});

describe('esdb mapping: replays', () => {
  const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
  const batch = ids.map((id) => event(id));

  it('given none of the ids stored, when looking for a replay, then there is none', () => {
    expect(
      findReplay(recorded('s', [event('00000000-0000-4000-8000-000000000009')]), 's', batch),
    ).toBeNull();
  });

  it('given the same batch stored, when looking for a replay, then its last event is returned', () => {
    const stored = recorded('s', [event('00000000-0000-4000-8000-000000000009'), ...batch]);
    expect(findReplay([...stored].reverse(), 's', batch)).toBe(stored[2]);
  });

  it('given an id stored for other content, when looking for a replay, then it is a duplicate id', () => {
    const stored = recorded('s', [event(ids[0] ?? ''), event(ids[1] ?? '', { n: 2 })]);
    expect(() => findReplay(stored, 's', batch)).toThrow(DuplicateEventId);
  });

  it('given only part of the batch stored, when looking for a replay, then it is a duplicate id', () => {
    const stored = recorded('s', [event(ids[0] ?? '')]);
    expect(() => findReplay(stored, 's', batch)).toThrow(DuplicateEventId);
  });

  it('given the ids stored apart or out of order, when looking for a replay, then it is a duplicate id', () => {
    const [first, second] = batch;
    if (!first || !second) throw new Error('fixture');
    const apart = recorded('s', [first, event('00000000-0000-4000-8000-000000000009'), second]);
    expect(() => findReplay(apart, 's', batch)).toThrow(DuplicateEventId);
    expect(() => findReplay(recorded('s', [second, first]), 's', batch)).toThrow(DuplicateEventId);
  });
});

describe('esdb mapping: filters', () => {
  const task = { streamId: 'task-1', type: 'TaskOpened' };
  const user = { streamId: 'user-1', type: 'UserJoined' };

  it('given no filter, when planned, then the server excludes system events and we accept the rest', () => {
    const plan = toFilterPlan();
    expect(plan.server).toMatchObject({ filterOn: EVENT_TYPE, regex: '^[^$].*' });
    expect(plan.accepts(task)).toBe(true);
    expect(plan.accepts({ streamId: '$stats', type: 'x' })).toBe(false);
  });

  it('given empty lists, when planned, then they do not constrain', () => {
    const plan = toFilterPlan({ streamPrefixes: [], eventTypes: [] });
    expect((plan.server as RegexFilter).regex).toBe('^[^$].*');
    expect(plan.accepts(user)).toBe(true);
  });

  it('given stream prefixes, when planned, then the server filters stream names by prefix', () => {
    const plan = toFilterPlan({ streamPrefixes: ['task-', 'order-'] });
    expect(plan.server).toMatchObject({ filterOn: STREAM_NAME, prefixes: ['task-', 'order-'] });
    expect(plan.accepts(task)).toBe(true);
    expect(plan.accepts(user)).toBe(false);
  });

  it('given event types, when planned, then the server filters by type prefix and we match exactly', () => {
    const plan = toFilterPlan({ eventTypes: ['TaskOpened'] });
    expect(plan.server).toMatchObject({ filterOn: EVENT_TYPE, prefixes: ['TaskOpened'] });
    expect(plan.accepts(task)).toBe(true);
    expect(plan.accepts({ streamId: 'task-1', type: 'TaskOpenedAgain' })).toBe(false);
  });

  it('given both lists, when planned, then the server filters streams and the types apply client-side', () => {
    const plan = toFilterPlan({ streamPrefixes: ['task-'], eventTypes: ['TaskClosed'] });
    expect(plan.server.filterOn).toBe(STREAM_NAME);
    expect((plan.server as PrefixesFilter).prefixes).toEqual(['task-']);
    expect(plan.accepts({ streamId: 'task-1', type: 'TaskClosed' })).toBe(true);
    expect(plan.accepts(task)).toBe(false);
    expect(plan.accepts({ streamId: 'user-1', type: 'TaskClosed' })).toBe(false);
  });

  it('given a stream partition, when planned, then each stream is accepted by exactly one partition and always the same one', () => {
    const streams = Array.from({ length: 200 }, (_, i) => `task-${i}`);
    const plans = [0, 1, 2, 3].map((index) =>
      toFilterPlan({ streamPrefixes: ['task-'], partition: { count: 4, index } }),
    );
    const owners = streams.map((streamId) =>
      plans.flatMap((plan, index) => (plan.accepts({ streamId, type: 'T' }) ? [index] : [])),
    );
    expect(owners.every((owner) => owner.length === 1)).toBe(true);
    // Spread over all four, and stable: the same stream lands in the same partition again.
    expect(new Set(owners.flat()).size).toBe(4);
    expect(plans[owners[7]![0]!]!.accepts({ streamId: 'task-7', type: 'Other' })).toBe(true);
    expect(streamHash('task-7')).toBe(streamHash('task-7'));
    expect(plans[0]!.accepts({ streamId: 'user-1', type: 'T' })).toBe(false);
  });

  it('given a filter matching a system stream, when an event of it arrives, then it is skipped', () => {
    const plan = toFilterPlan({ streamPrefixes: ['$'] });
    expect(plan.accepts({ streamId: '$settings', type: 'update' })).toBe(false);
  });
});

describe('esdb mapping: errors', () => {
  it('given a wrong-expected-version error, when mapped, then it carries the expected and actual revisions', () => {
    const error = new WrongExpectedVersionError(undefined, {
      streamName: 'task-1',
      expected: 2n,
      current: 4n,
    });
    const mapped = toCogitaveError(error);
    expect(mapped).toBeInstanceOf(WrongExpectedVersion);
    expect(mapped).toMatchObject({ streamId: 'task-1', expected: 2n, actual: 4n });
  });

  it('given a wrong-expected-version error on a missing stream, when mapped with the caller expectation, then actual is null', () => {
    const error = new WrongExpectedVersionError(undefined, {
      streamName: 'task-1',
      expected: STREAM_EXISTS,
      current: NO_STREAM,
    });
    expect(toCogitaveError(error, { expected: 'any' })).toMatchObject({
      expected: 'any',
      actual: null,
    });
  });

  it('given a stream-deleted error (a tombstone), when mapped, then it is FAILED_PRECONDITION naming the stream', () => {
    const mapped = toCogitaveError(StreamDeletedError.fromStreamName('task-1'), {
      streamId: 'task-1',
    });
    expect(mapped).toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(mapped.message).toContain('"task-1" was deleted in EventStoreDB');
  });

  it('given unavailability errors of the client, when mapped, then they are Unavailable', () => {
    expect(toCogitaveError(new UnavailableError())).toBeInstanceOf(Unavailable);
    expect(toCogitaveError(new DeadlineExceededError())).toBeInstanceOf(Unavailable);
  });

  it('given a raw gRPC UNAVAILABLE error (as append throws it), when mapped, then it is Unavailable', () => {
    const raw = Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
      code: 14,
      details: 'No connection established',
    });
    expect(toCogitaveError(raw, { streamId: 'task-1' })).toBeInstanceOf(Unavailable);
  });

  it('given network and discovery failures, when mapped, then they are Unavailable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2113'), {
      code: 'ECONNREFUSED',
    });
    expect(toCogitaveError(refused)).toBeInstanceOf(Unavailable);
    expect(toCogitaveError(new Error('Failed to discover after 10 attempts.'))).toBeInstanceOf(
      Unavailable,
    );
  });

  it('given access denied or an oversized append, when mapped, then they are config and argument errors', () => {
    expect(toCogitaveError(new AccessDeniedError())).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(toCogitaveError(MaxAppendSizeExceededError.fromMaxAppendSize(1024))).toBeInstanceOf(
      InvalidArgument,
    );
  });

  it('given a Cogitave error or an unknown failure, when mapped, then the first passes and the second is internal', () => {
    const ours = new InvalidArgument('bad');
    expect(toCogitaveError(ours)).toBe(ours);
    expect(toCogitaveError(new Error('boom'))).toMatchObject({ code: 'INTERNAL' });
    expect(toCogitaveError('boom')).toMatchObject({ code: 'INTERNAL' });
  });

  it('given a stream-not-found error, when checked, then it is recognised and others are not', () => {
    expect(isStreamNotFound(new StreamNotFoundError(undefined, 'task-1'))).toBe(true);
    expect(isStreamNotFound(new UnavailableError())).toBe(false);
    expect(isStreamNotFound(new Error('x'))).toBe(false);
  });
});
