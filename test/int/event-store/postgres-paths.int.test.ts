import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import { DuplicateEventId, WrongExpectedVersion } from '../../../services/event-store/errors.js';
import { findChainBreak } from '../../../services/event-store/hash-chain.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { newEvent } from './contract.js';

// The Postgres adapter writes through two paths: a plain INSERT when it already knows the
// stream head (its own last append or read), and append_events otherwise. Two stores on one
// database stand for two processes whose knowledge of a stream differs.
describe('postgres adapter: fast and general append paths', () => {
  const logger = createLogger('silent');
  let throwaway: ThrowawayDatabase;
  let database: Database;
  let first: PostgresEventStore;
  let second: PostgresEventStore;

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('paths');
    database = await openDatabase({
      databaseUrl: throwaway.url,
      dataDir: '',
      poolSize: 10,
      logger,
    });
    await migrate(database.pool, [eventStoreMigrations], logger);
    first = createPostgresEventStore({ database, logger });
    second = createPostgresEventStore({ database, logger });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.close();
    await throwaway.drop();
  });

  it('given a head one process knows, when another process appended since, then the stale fast path ends in WrongExpectedVersion and the chain holds', async () => {
    const stream = 'paths-stale';
    const start = await first.append(stream, [newEvent()], { expectedRevision: 'no_stream' });
    await second.append(stream, [newEvent()], { expectedRevision: 'any' });
    const error = await first
      .append(stream, [newEvent()], { expectedRevision: start.nextRevision })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WrongExpectedVersion);
    expect((error as WrongExpectedVersion).actual).toBe(1n);
    const events = await first.readStream(stream);
    expect(events).toHaveLength(2);
    expect(findChainBreak(events)).toBeNull();
  });

  it('given both paths interleaved on one stream by two processes, then revisions are gap-free and every link holds', async () => {
    const stream = 'paths-mixed';
    let revision = (await first.append(stream, [newEvent()], { expectedRevision: 'no_stream' }))
      .nextRevision;
    for (let round = 0; round < 20; round += 1) {
      // first: exact revision on a head it knows (fast path); second: 'any' (general path).
      await first.append(stream, [newEvent(), newEvent()], { expectedRevision: revision });
      await second.append(stream, [newEvent()], { expectedRevision: 'any' });
      // first learns the new head by reading it, as a decider does before it decides.
      const [head] = await first.readStream(stream, { direction: 'backwards', maxCount: 1 });
      revision = head!.revision;
    }
    const events = await second.readStream(stream);
    expect(events).toHaveLength(61);
    expect(findChainBreak(events)).toBeNull();
  });

  it('given many concurrent exact appends on distinct streams, when they share transactions, then each gets its own outcome', async () => {
    const streams = Array.from({ length: 40 }, (_, i) => `paths-group-${i}`);
    const firsts = await Promise.all(
      streams.map((stream) =>
        first.append(stream, [newEvent()], { expectedRevision: 'no_stream' }),
      ),
    );
    // Half append at the right revision, half at a stale one, all at once.
    const outcomes = await Promise.allSettled(
      streams.map((stream, i) =>
        first.append(stream, [newEvent()], {
          expectedRevision: i % 2 === 0 ? firsts[i]!.nextRevision : firsts[i]!.nextRevision + 5n,
        }),
      ),
    );
    outcomes.forEach((outcome, i) => {
      if (i % 2 === 0) expect(outcome.status).toBe('fulfilled');
      else
        expect(
          outcome.status === 'rejected' && outcome.reason instanceof WrongExpectedVersion,
        ).toBe(true);
    });
    const lengths = await Promise.all(
      streams.map(async (stream) => (await second.readStream(stream)).length),
    );
    expect(lengths).toEqual(streams.map((_, i) => (i % 2 === 0 ? 2 : 1)));
  });

  describe('appendAtomically (several streams, all or nothing)', () => {
    const parts = (tag: string, ids = [newEvent(), newEvent(), newEvent()]) =>
      ids.map((event, index) => ({
        streamId: `atomic-${tag}-${String(index)}`,
        events: [event],
        options: { expectedRevision: 'no_stream' as const },
      }));
    const atomic = (store: PostgresEventStore) => {
      if (!store.appendAtomically) throw new Error('the Postgres store appends atomically');
      return store.appendAtomically.bind(store);
    };

    it('given three new streams, when appended atomically, then each answers its own revision and position, all in one transaction, and a retry is idempotent', async () => {
      const append = parts('ok');
      const results = await atomic(first)(append);
      expect(results.map((result) => result.nextRevision)).toEqual([0n, 0n, 0n]);
      expect(new Set(results.map((result) => result.position)).size).toBe(3);
      const { rows } = await database.pool.query<{ n: string }>(
        `SELECT count(DISTINCT transaction_id) AS n FROM event_store.events WHERE stream_id LIKE 'atomic-ok-%'`,
      );
      expect(rows[0]?.n).toBe('1');
      // Retried from the other process (which knows none of the heads): the same answer.
      expect(await atomic(second)(append)).toEqual(results);
    });

    it('given one part whose stream moved, when appended atomically, then WrongExpectedVersion and none of the parts is stored', async () => {
      const append = parts('moved');
      await second.append(append[1]!.streamId, [newEvent()], { expectedRevision: 'no_stream' });
      const error = await atomic(first)(append).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WrongExpectedVersion);
      for (const part of [append[0]!, append[2]!])
        expect(await first.readStream(part.streamId)).toEqual([]);
    });

    it('given an event id another stream holds, when appended atomically, then DuplicateEventId naming that stream and nothing stored', async () => {
      const reused = newEvent();
      await first.append('atomic-owner', [reused], { expectedRevision: 'no_stream' });
      const append = parts('dup', [newEvent(), reused, newEvent()]);
      const error = await atomic(second)(append).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DuplicateEventId);
      expect((error as DuplicateEventId).details.streamId).toBe('atomic-owner');
      for (const part of append) expect(await first.readStream(part.streamId)).toEqual([]);
    });

    it('given many atomic appends at once on streams they share, when they race, then every one is stored whole or refused whole and each chain holds', async () => {
      const shared = 'atomic-race-shared';
      await first.append(shared, [newEvent()], { expectedRevision: 'no_stream' });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 24 }, (_, i) =>
          atomic(i % 2 ? first : second)([
            { streamId: shared, events: [newEvent()], options: { expectedRevision: 'any' } },
            {
              streamId: `atomic-race-${String(i)}`,
              events: [newEvent(), newEvent()],
              options: { expectedRevision: 'no_stream' },
            },
          ]),
        ),
      );
      expect(outcomes.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
      const events = await first.readStream(shared);
      expect(events).toHaveLength(25);
      expect(findChainBreak(events)).toBeNull();
    });
  });
});
