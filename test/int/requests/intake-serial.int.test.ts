import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '../../../services/event-store/types.js';
import { requestStreamId } from '../../../services/requests/events.js';
import {
  formatRequestId,
  INTAKE_COMMAND_BOUND,
  intakeCommandStreamId,
  requestIdCounterStreamId,
} from '../../../services/requests/request-ids.js';
import { allocatedEvents, form, meta, openTwoWriters, type Writer } from './support.js';

/**
 * Intake ids on a store without atomic appends across streams (as on EventStoreDB): the
 * counter, the bindings and the requests are separate appends, and the protocol of
 * request-ids.ts (epochs, binding checks, completing the head batch) keeps ids gap-free and
 * retries answered with their first id. Two writers share only the database.
 */
let a: Writer;
let b: Writer;

/** The Postgres store with its atomic multi-stream append hidden. */
const withoutAtomicAppends = (store: EventStore): EventStore => ({
  kind: store.kind,
  append: (streamId, events, options) => store.append(streamId, events, options),
  readStream: (streamId, options) => store.readStream(streamId, options),
  readAll: (options) => store.readAll(options),
  lastPosition: () => store.lastPosition(),
  subscribeToAll: (options) => store.subscribeToAll(options),
  close: () => store.close(),
});

let closeWriters: () => Promise<void>;

beforeAll(async () => {
  ({ a, b, close: closeWriters } = await openTwoWriters('intake_serial', withoutAtomicAppends));
});

afterAll(async () => {
  await closeWriters();
});

/** Every id of the year 1..n exists exactly once: allocated, bound and proposed. */
const expectGapFree = async (year: number, n: number): Promise<void> => {
  const counter = await a.store.readStream(requestIdCounterStreamId(year), { maxCount: n + 10 });
  expect(counter.map((event) => (event.data as { requestId: string }).requestId)).toEqual(
    Array.from({ length: n }, (_, i) => formatRequestId(year, i + 1)),
  );
  for (const event of counter) {
    const { requestId, commandId } = event.data as { requestId: string; commandId: string };
    const bound = await a.store.readStream(intakeCommandStreamId(commandId));
    expect(bound.map((binding) => binding.type)).toEqual([INTAKE_COMMAND_BOUND]);
    const request = await a.store.readStream(requestStreamId(requestId));
    expect(request.map((proposed) => proposed.type)).toEqual(['RequestProposed']);
  }
};

describe('intake ids without atomic appends (two writers on one Postgres)', () => {
  it('given 48 intakes at once spread over two writers, when they finish, then 48 distinct gap-free ids, each bound and proposed once', async () => {
    const results = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        (i % 2 === 0 ? a : b).handlers.proposeIntake(form, meta(2050)),
      ),
    );
    expect(new Set(results.map((result) => result.requestId)).size).toBe(48);
    await expectGapFree(2050, 48);
  });

  it('given intakes retried with the same commandId on both writers at once, when all finish, then each command has one id and one request', async () => {
    const commands = Array.from({ length: 8 }, () => meta(2051));
    const results = await Promise.all(
      commands.flatMap((command) => [
        a.handlers.proposeIntake(form, command),
        b.handlers.proposeIntake(form, command),
      ]),
    );
    commands.forEach((_, index) => {
      expect(results[index * 2]).toEqual(results[index * 2 + 1]);
    });
    await expectGapFree(2051, 8);
  });

  it('given a maker crashed before completing its batch, when another writer takes an intake and the crashed ones are retried, then every number has its request', async () => {
    const crashed = [meta(2052, 'agent:crashy'), meta(2052, 'agent:crashy')];
    await a.store.append(requestIdCounterStreamId(2052), allocatedEvents(2052, 1, crashed), {
      expectedRevision: 'no_stream',
    });
    const fresh = await b.handlers.proposeIntake(form, meta(2052));
    expect(fresh.requestId).toBe('req-2052-0003');
    await expectGapFree(2052, 3);
    for (const [index, command] of crashed.entries()) {
      const retried = await a.handlers.proposeIntake(form, command);
      expect(retried.requestId).toBe(formatRequestId(2052, index + 1));
      expect(retried.proposed.data.proposedBy).toBe('agent:crashy');
    }
  });
});
