import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEventId } from '../../../services/commands/event-ids.js';
import {
  foldWholeStream,
  runCommand,
  type Command,
  type DecidedEvent,
} from '../../../services/commands/handler.js';
import type { CommandMetadata } from '../../../services/commands/metadata.js';
import { WrongExpectedVersion } from '../../../services/event-store/errors.js';
import type { RecordedEvent } from '../../../services/event-store/types.js';
import { openTestBed, type TestBed } from '../projections/support/fixtures.js';

/**
 * The command kernel on the real event store: a counter stream whose `Add` command appends
 * one `Added` event carrying the total it decided on, so a decision on a stale state shows.
 */
let bed: TestBed;

beforeAll(async () => {
  bed = await openTestBed('postgres', 'commands', []);
});

afterAll(async () => {
  await bed.close();
});

interface Added extends DecidedEvent {
  readonly type: 'Added';
  readonly data: { readonly total: number };
}

const parse = (recorded: RecordedEvent): Added => {
  const total = (recorded.data as { total?: unknown }).total;
  if (recorded.type !== 'Added' || typeof total !== 'number') throw new Error('not an Added');
  return { type: 'Added', data: { total } };
};

const fold = (recorded: readonly RecordedEvent[]): number =>
  recorded.map(parse).reduce((total) => total + 1, 0);

const meta = (commandId = randomUUID()): CommandMetadata => ({
  commandId,
  actor: 'test',
  at: '2026-01-01T00:00:00.000Z',
});

const add = (
  streamId: string,
  commandMeta: CommandMetadata,
  overrides: Partial<Command<number, Added>> = {},
): Command<number, Added> => ({
  streamId,
  meta: commandMeta,
  load: foldWholeStream(bed.store, streamId, commandMeta, fold),
  decide: ({ state }) => [{ type: 'Added', data: { total: state + 1 } }],
  parse,
  ...overrides,
});

const totals = async (streamId: string): Promise<number[]> =>
  (await bed.store.readStream(streamId)).map((event) => parse(event).data.total);

describe('runCommand (postgres)', () => {
  it('given another writer appends between load and append, when the command runs, then it decides again on the new state', async () => {
    const streamId = `counter-${randomUUID()}`;
    await runCommand(bed.store, add(streamId, meta()), { maxAttempts: 1 });
    const mine = meta();
    let interfered = false;
    const outcome = await runCommand(
      bed.store,
      add(streamId, mine, {
        load: async (fresh) => {
          const folded = await foldWholeStream(bed.store, streamId, mine, fold)();
          if (!interfered) {
            interfered = true;
            await runCommand(bed.store, add(streamId, meta()), { maxAttempts: 1 });
          }
          return { ...folded, fresh };
        },
      }),
      { maxAttempts: 3 },
    );
    expect(outcome.replayed).toBe(false);
    expect(outcome.events).toEqual([{ type: 'Added', data: { total: 3 } }]);
    expect(outcome.revision).toBe(2n);
    expect(await totals(streamId)).toEqual([1, 2, 3]);
  });

  it('given conflicts on every attempt, when attempts run out, then the policy error and nothing appended', async () => {
    const streamId = `counter-${randomUUID()}`;
    const mine = meta();
    const error = await runCommand(
      bed.store,
      add(streamId, mine, {
        load: async () => {
          const folded = await foldWholeStream(bed.store, streamId, mine, fold)();
          await runCommand(bed.store, add(streamId, meta()), { maxAttempts: 1 });
          return folded;
        },
      }),
      {
        maxAttempts: 2,
        conflict: (cause, attempts) => new Error(`busy after ${attempts}`, { cause }),
      },
    ).catch((e: unknown) => e);
    expect(String(error)).toContain('busy after 2');
    expect((error as Error).cause).toBeInstanceOf(WrongExpectedVersion);
    expect(await totals(streamId)).toEqual([1, 2]);
  });

  it('given a command was appended, when it is retried with the same commandId after the stream moved on, then its first result and nothing new', async () => {
    const streamId = `counter-${randomUUID()}`;
    const retried = meta();
    const first = await runCommand(bed.store, add(streamId, retried), { maxAttempts: 1 });
    await runCommand(bed.store, add(streamId, meta()), { maxAttempts: 1 });
    const again = await runCommand(bed.store, add(streamId, retried), { maxAttempts: 1 });
    expect(again.events).toEqual(first.events);
    expect(again.revision).toBe(first.revision);
    expect(await totals(streamId)).toEqual([1, 2]);
  });

  it('given a cache that already folded the command, when it is retried and decides again, then the stored events are returned', async () => {
    const streamId = `counter-${randomUUID()}`;
    const retried = meta();
    await runCommand(bed.store, add(streamId, retried), { maxAttempts: 1 });
    // A cache folded past the command's own event: the decision differs, the ids do not.
    const outcome = await runCommand(
      bed.store,
      add(streamId, retried, {
        load: async () => ({
          state: (await bed.store.readStream(streamId)).length,
          revision: 0n,
          position: null,
          fresh: false,
        }),
      }),
      { maxAttempts: 1 },
    );
    expect(outcome.replayed).toBe(true);
    expect(outcome.events).toEqual([{ type: 'Added', data: { total: 1 } }]);
    expect((await bed.store.readStream(streamId)).map((event) => event.id)).toEqual([
      commandEventId(retried.commandId, 0),
    ]);
  });

  it('given a refusal decided on a cached state, when the stream says otherwise, then it is decided again on the stream', async () => {
    const streamId = `counter-${randomUUID()}`;
    await runCommand(bed.store, add(streamId, meta()), { maxAttempts: 1 });
    const mine = meta();
    const loads: boolean[] = [];
    const outcome = await runCommand(
      bed.store,
      add(streamId, mine, {
        load: async (fresh) => {
          loads.push(fresh);
          return fresh
            ? foldWholeStream(bed.store, streamId, mine, fold)()
            : { state: 0, revision: null, position: null, fresh: false };
        },
        decide: ({ state }) => {
          if (state === 0) throw new Error('the counter must have been started');
          return [{ type: 'Added', data: { total: state + 1 } }];
        },
      }),
      { maxAttempts: 1 },
    );
    expect(loads).toEqual([false, true]);
    expect(outcome.events).toEqual([{ type: 'Added', data: { total: 2 } }]);
  });
});
