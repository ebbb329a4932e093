import { describe, expect, it } from 'vitest';
import { createBookkeepingLog, NotBookkeeping } from '../../../services/commands/bookkeeping.js';
import { appendDecided, appendDecidedWithBookkeeping } from '../../../services/commands/decided.js';
import { commandEventIds } from '../../../services/commands/event-ids.js';
import { eventMetadata, type CommandMetadata } from '../../../services/commands/metadata.js';
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  Position,
  StreamAppend,
} from '../../../services/event-store/types.js';

/** A store that only records what reaches it: the port under test never reads. */
const recordingStore = (atomic: boolean) => {
  const appended: { readonly streamId: string; readonly events: readonly EventToAppend[] }[] = [];
  const result: AppendResult = { nextRevision: 0n, position: '1' as Position };
  const unused = (): never => {
    throw new Error('not used by the write ports');
  };
  const store: EventStore = {
    kind: 'postgres',
    append: (streamId, events) => {
      appended.push({ streamId, events });
      return Promise.resolve(result);
    },
    ...(atomic && {
      appendAtomically: (appends: readonly StreamAppend[]) => {
        for (const { streamId, events } of appends) appended.push({ streamId, events });
        return Promise.resolve(appends.map(() => result));
      },
    }),
    readStream: unused,
    readAll: unused,
    lastPosition: unused,
    subscribeToAll: unused,
    close: () => Promise.resolve(),
  };
  return { store, appended };
};

const meta: CommandMetadata = {
  commandId: '4b0e7c52-2f5d-4f0a-9d7e-1c2b3a4d5e6f',
  actor: 'agent:alice',
  at: '2026-03-01T10:00:00.000Z',
};

const event = (type: string): EventToAppend => ({
  id: '0f7c1e2a-9b3d-4c5e-8f6a-7b8c9d0e1f2a',
  type,
  data: {},
  metadata: eventMetadata(meta),
});

const append = (streamId: string, type: string): StreamAppend => ({
  streamId,
  events: [event(type)],
  options: { expectedRevision: 'no_stream' },
});

describe('bookkeeping log', () => {
  it('given a log for type A, when it records an A, then the append reaches the store', async () => {
    const { store, appended } = recordingStore(false);
    const log = createBookkeepingLog(store, ['A']);
    await log.record('counter-a', [event('A')], { expectedRevision: 'no_stream' });
    expect(log.types).toEqual(['A']);
    expect(appended).toEqual([{ streamId: 'counter-a', events: [event('A')] }]);
  });

  it('given a log for type A, when it records a B (alone or after an A), then NotBookkeeping and nothing appended', async () => {
    const { store, appended } = recordingStore(false);
    const log = createBookkeepingLog(store, ['A']);
    await expect(log.record('s', [event('B')], { expectedRevision: 'any' })).rejects.toBeInstanceOf(
      NotBookkeeping,
    );
    const error = await log
      .record('s', [event('A'), event('B')], { expectedRevision: 'any' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'NotBookkeeping', eventType: 'B', types: ['A'] });
    expect(appended).toEqual([]);
  });

  it('given a store with atomic appends, when recordAtomically holds a B in any part, then NotBookkeeping and nothing appended', async () => {
    const { store, appended } = recordingStore(true);
    const log = createBookkeepingLog(store, ['A']);
    if (!log.recordAtomically) throw new Error('the store appends atomically');
    await expect(
      log.recordAtomically([append('one', 'A'), append('two', 'B')]),
    ).rejects.toBeInstanceOf(NotBookkeeping);
    expect(appended).toEqual([]);
    await log.recordAtomically([append('one', 'A'), append('two', 'A')]);
    expect(appended.map((part) => part.streamId)).toEqual(['one', 'two']);
  });

  it('given a store without atomic appends, when a log is opened, then it offers no recordAtomically', () => {
    const { store } = recordingStore(false);
    expect(createBookkeepingLog(store, ['A']).recordAtomically).toBeUndefined();
  });
});

describe('already-decided events through the kernel', () => {
  const decided = {
    streamId: 'request-req-2026-0001',
    events: [{ type: 'RequestProposed', data: { requestId: 'req-2026-0001' } }],
    meta,
    expectedRevision: 'no_stream' as const,
  };

  it('given decided events, when appended, then they carry the command metadata and its deterministic ids', async () => {
    const { store, appended } = recordingStore(false);
    await appendDecided(store, decided);
    expect(appended).toEqual([
      {
        streamId: decided.streamId,
        events: [
          {
            id: commandEventIds(meta.commandId, 1)[0],
            type: 'RequestProposed',
            data: { requestId: 'req-2026-0001' },
            metadata: eventMetadata(meta),
          },
        ],
      },
    ]);
  });

  it('given bookkeeping and decided parts, when appended atomically, then a bookkeeping part of a type outside the log is refused before anything is appended', async () => {
    const { store, appended } = recordingStore(true);
    const atomically = appendDecidedWithBookkeeping(store, createBookkeepingLog(store, ['A']));
    if (!atomically) throw new Error('the store appends atomically');
    await expect(
      atomically([{ bookkeeping: append('counter', 'B') }, { decided }]),
    ).rejects.toBeInstanceOf(NotBookkeeping);
    expect(appended).toEqual([]);
    const results = await atomically([{ bookkeeping: append('counter', 'A') }, { decided }]);
    expect(results).toHaveLength(2);
    expect(appended.map((part) => [part.streamId, part.events[0]?.type])).toEqual([
      ['counter', 'A'],
      [decided.streamId, 'RequestProposed'],
    ]);
  });

  it('given a store without atomic appends, when the atomic entry is asked for, then there is none', () => {
    const { store } = recordingStore(false);
    expect(appendDecidedWithBookkeeping(store, createBookkeepingLog(store, ['A']))).toBeUndefined();
  });
});
