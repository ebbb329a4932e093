import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEventId } from '../../../services/commands/event-ids.js';
import { eventMetadata } from '../../../services/commands/metadata.js';
import { requestStreamId } from '../../../services/requests/events.js';
import {
  formatRequestId,
  INTAKE_COMMAND_BOUND,
  intakeCommandStreamId,
  requestIdCounterStreamId,
} from '../../../services/requests/request-ids.js';
import { allocatedEvents, form, meta, openTwoWriters, type Writer } from './support.js';

/**
 * Intakes at once, in two writers that share only the database (each its own pool, event
 * store and handlers, as two gateway processes have): every intake gets one id, the ids of a
 * year run 1..n without a gap, a retried command (same commandId, in either process, also
 * while the first attempt runs) gets its first id back, and what a maker that crashed
 * half-way left behind is completed by the next intake.
 */
let a: Writer;
let b: Writer;

let closeWriters: () => Promise<void>;

beforeAll(async () => {
  ({ a, b, close: closeWriters } = await openTwoWriters('intake_concurrency'));
});

afterAll(async () => {
  await closeWriters();
});

const count = async (sql: string, values: unknown[]): Promise<number> => {
  const { rows } = await a.database.pool.query<{ n: string }>(sql, values);
  return Number(rows[0]?.n);
};

/** Every id of the year 1..n exists exactly once: allocated, bound and proposed. */
const expectGapFree = async (year: number, n: number): Promise<void> => {
  const counter = await a.store.readStream(requestIdCounterStreamId(year), { maxCount: n + 10 });
  expect(counter.map((event) => (event.data as { requestId: string }).requestId)).toEqual(
    Array.from({ length: n }, (_, i) => formatRequestId(year, i + 1)),
  );
  const commands = counter.map((event) => (event.data as { commandId: string }).commandId);
  expect(new Set(commands).size).toBe(n);
  expect(
    await count(
      `SELECT count(*) AS n FROM event_store.events WHERE stream_id LIKE $1 AND stream_revision = 0`,
      [`request-req-${year}-%`],
    ),
  ).toBe(n);
  expect(
    await count(
      `SELECT count(*) AS n FROM event_store.events WHERE stream_id LIKE $1 AND stream_revision > 0`,
      [`request-req-${year}-%`],
    ),
  ).toBe(0);
  for (const commandId of commands) {
    const bound = await a.store.readStream(intakeCommandStreamId(commandId));
    expect(bound.map((event) => event.type)).toEqual([INTAKE_COMMAND_BOUND]);
  }
};

describe('intake ids under concurrency (two writers on one Postgres)', () => {
  it('given 96 intakes at once spread over two writers, when they finish, then 96 distinct gap-free ids, each proposed once, in shared appends', async () => {
    const results = await Promise.all(
      Array.from({ length: 96 }, (_, i) =>
        (i % 2 === 0 ? a : b).handlers.proposeIntake(form, meta(2040)),
      ),
    );
    expect(new Set(results.map((result) => result.requestId)).size).toBe(96);
    await expectGapFree(2040, 96);
    // Each answer is the request as stored, at its position in the log.
    for (const result of results) {
      const [first] = await a.store.readStream(requestStreamId(result.requestId));
      expect(result.position).toBe(first!.position);
      expect(result.proposed.data.requestId).toBe(result.requestId);
    }
    // Waiting intakes shared appends: fewer batches than intakes.
    const counter = await a.store.readStream(requestIdCounterStreamId(2040), { maxCount: 200 });
    const batches = new Set(
      counter.map((event) => (event.data as { batchFirst: number }).batchFirst),
    );
    expect(batches.size).toBeLessThan(96);
  });

  it('given intakes retried with the same commandId on both writers while the first attempts run, when all finish, then each command has one id and one request', async () => {
    const commands = Array.from({ length: 12 }, () => meta(2041));
    const attempts = commands.flatMap((command) => [
      a.handlers.proposeIntake(form, command),
      b.handlers.proposeIntake(form, command),
      a.handlers.proposeIntake(form, command),
      b.handlers.proposeIntake(form, command),
    ]);
    const results = await Promise.all(attempts);
    commands.forEach((_, index) => {
      const mine = results.slice(index * 4, index * 4 + 4);
      expect(new Set(mine.map((result) => result.requestId)).size).toBe(1);
      for (const result of mine) expect(result).toEqual(mine[0]);
    });
    await expectGapFree(2041, 12);
    // Later retries (either writer) answer the same and append nothing.
    const before = await count('SELECT count(*) AS n FROM event_store.events', []);
    const again = await Promise.all(
      commands.map((command, i) => (i % 2 ? a : b).handlers.proposeIntake(form, command)),
    );
    expect(again).toEqual(results.filter((_, i) => i % 4 === 0));
    expect(await count('SELECT count(*) AS n FROM event_store.events', [])).toBe(before);
  });

  it('given a maker crashed half-way through a batch of three, when another writer takes intakes and the crashed ones are retried, then every number has its request and the retries get theirs', async () => {
    const crashed = [
      meta(2042, 'agent:crashy'),
      meta(2042, 'agent:crashy'),
      meta(2042, 'agent:crashy'),
    ];
    await a.store.append(requestIdCounterStreamId(2042), allocatedEvents(2042, 1, crashed), {
      expectedRevision: 'no_stream',
    });
    // The maker had bound the first and proposed the second before it died.
    await a.store.append(
      intakeCommandStreamId(crashed[0]!.commandId),
      [
        {
          id: commandEventId(crashed[0]!.commandId, 'bind'),
          type: INTAKE_COMMAND_BOUND,
          data: { requestId: 'req-2042-0001', year: 2042, sequence: 1 },
          metadata: eventMetadata(crashed[0]!),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const next = await Promise.all([
      a.handlers.proposeIntake(form, meta(2042)),
      a.handlers.proposeIntake(form, meta(2042)),
    ]);
    expect(next.map((result) => result.requestId).sort()).toEqual([
      'req-2042-0004',
      'req-2042-0005',
    ]);
    await expectGapFree(2042, 5);
    for (const [index, command] of crashed.entries()) {
      const retried = await (index % 2 ? a : b).handlers.proposeIntake(form, command);
      expect(retried.requestId).toBe(formatRequestId(2042, index + 1));
      expect(retried.proposed.data.proposedBy).toBe('agent:crashy');
    }
    await expectGapFree(2042, 5);
  });

  it('given the head batch of another writer is incomplete, when this writer allocates, then it completes that batch before taking the next numbers', async () => {
    const left = [meta(2043, 'agent:crashy'), meta(2043, 'agent:crashy')];
    await a.store.append(requestIdCounterStreamId(2043), allocatedEvents(2043, 1, left), {
      expectedRevision: 'no_stream',
    });
    const fresh = await b.handlers.proposeIntake(form, meta(2043));
    expect(fresh.requestId).toBe('req-2043-0003');
    await expectGapFree(2043, 3);
    const [completed] = await a.store.readStream(requestStreamId('req-2043-0002'));
    expect(completed?.metadata.actor).toBe('agent:crashy');
    expect(completed?.id).toBe(commandEventId(left[1]!.commandId, 0));
  });

  it('given intakes at once on Postgres, when they finish, then each batch is one transaction: its allocations, bindings and requests committed together', async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, () => a.handlers.proposeIntake(form, meta(2044))),
    );
    await expectGapFree(2044, 24);
    // Every allocation's request and binding were committed in its own transaction.
    expect(
      await count(
        `SELECT count(*) AS n FROM event_store.events c
          WHERE c.stream_id = $1
            AND EXISTS (SELECT 1 FROM event_store.events r WHERE r.transaction_id = c.transaction_id
                          AND r.stream_id = 'request-' || (c.content::jsonb->'data'->>'requestId'))
            AND EXISTS (SELECT 1 FROM event_store.events k WHERE k.transaction_id = c.transaction_id
                          AND k.stream_id = 'intake-command-' || lower(c.content::jsonb->'data'->>'commandId'))`,
        [requestIdCounterStreamId(2044)],
      ),
    ).toBe(results.length);
  });

  it('given a commandId whose first event id another command stored, when an intake reuses it, then FAILED_PRECONDITION, no number taken, and the next intake gets the next number', async () => {
    await a.handlers.proposeIntake(form, meta(2045));
    const reused = meta(2045);
    await a.store.append(
      'other-command-stream',
      [
        {
          id: commandEventId(reused.commandId, 0),
          type: 'SomethingElse',
          data: {},
          metadata: eventMetadata(reused),
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const before = await count('SELECT count(*) AS n FROM event_store.events', []);
    const error = await b.handlers.proposeIntake(form, reused).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(await count('SELECT count(*) AS n FROM event_store.events', [])).toBe(before);
    const next = await b.handlers.proposeIntake(form, meta(2045));
    expect(next.requestId).toBe('req-2045-0002');
    await expectGapFree(2045, 2);
  });
});
