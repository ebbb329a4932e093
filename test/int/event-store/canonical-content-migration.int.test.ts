import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import { contentHash, findChainBreak } from '../../../services/event-store/hash-chain.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { EventMetadata, RecordedEvent } from '../../../services/event-store/types.js';
import { verifyLog } from '../../../services/audit/verify.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * Migration 003 converts a database written before events kept their canonical bytes. The
 * database is made as the previous release made it: the event store's migrations 001–002
 * (the very files, so the same checksums) and events appended through that schema's
 * `append_events` with jsonb data and a contentHash computed in Node — the old adapter's
 * general path, which every append took on PGlite.
 */
const logger = createLogger('silent');
const OLD_MIGRATIONS = ['001_events.sql', '002_stream_buckets.sql'];

interface OldEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

const metadata = (n: number): EventMetadata => ({
  actor: n % 2 === 0 ? 'token:ci-bot' : 'github:octocat',
  correlationId: `corr-${n}`,
  causationId: `cause-${n}`,
  at: `2026-02-0${(n % 9) + 1}T10:00:00.000+01:00`,
});

/** Values a JSON encoder can get wrong: numbers, escapes, key order beyond ASCII, sizes. */
const AWKWARD_DATA: readonly unknown[] = [
  { numbers: [0, -0, 1, -1, 0.1, 0.5, 1e21, 1e20, 1e-7, 1e-6, 123.456, -1.5e-10] },
  {
    numbers: [2 ** 53 + 2, Number.MAX_VALUE, 5e-324, 1 / 3, 0.1 + 0.2, 4.35e-5, 43490707874298100],
  },
  { text: 'quote " backslash \\ tab \t newline \n cr \r bell \u0007 unit \u001f del \u007f' },
  { text: 'line separator \u2028 paragraph \u2029 emoji 😀 han 中 euro €' },
  { '\uFB33': 3, '\u{1F600}': 2, '\u20AC': 1, é: 0, '\r': 4, a: 5, '': 6, '\uE000': 7 },
  { nested: { z: [3, { y: 1, x: [] }], a: {}, m: null, t: true, f: false } },
  {
    long: 'x'.repeat(5000),
    keys: Object.fromEntries(['z', 'y', 'x', 'w', 'v', 'q'].map((k, i) => [k, i])),
  },
  'a bare string',
  42,
  null,
  [1, 'two', [3], { four: 4 }],
];

const oldEvents = (stream: number): OldEvent[] =>
  AWKWARD_DATA.map((data, i) => ({
    id: randomUUID(),
    type: i === 0 ? 'ThingMade' : 'ThingChanged',
    data,
    metadata: { ...metadata(i), ...(i === 4 ? { tenant: 'acme', 'x-trace': '\u{1F600}' } : {}) },
  })).slice(0, 3 + stream * 2);

/** One append of the old general path: jsonb data and metadata, Node's contentHash. */
const appendOld = async (
  database: Database,
  streamId: string,
  events: readonly OldEvent[],
): Promise<void> => {
  const payload = events.map((event) => ({
    ...event,
    contentHash: contentHash(streamId, event),
  }));
  const { rows } = await database.pool.query<{ outcome: string }>(
    'SELECT outcome FROM event_store.append_events($1, $2, $3::jsonb)',
    [streamId, 'any', JSON.stringify(payload)],
  );
  expect(rows[0]?.outcome).toBe('appended');
};

const migrateOld = async (database: Database): Promise<void> => {
  const folder = mkdtempSync(join(tmpdir(), 'cogitave-old-migrations-'));
  try {
    for (const file of OLD_MIGRATIONS) {
      copyFileSync(new URL(file, eventStoreMigrations.directory), join(folder, file));
    }
    await migrate(
      database.pool,
      [{ owner: eventStoreMigrations.owner, directory: pathToFileURL(`${folder}/`) }],
      logger,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
};

interface Written {
  readonly streams: Map<string, OldEvent[]>;
  readonly tampered: { readonly streamId: string; readonly id: string };
  readonly maxPosition: bigint;
}

/** The old database: 4 streams, interleaved appends, one event altered in the table. */
const writeOldDatabase = async (database: Database): Promise<Written> => {
  await migrateOld(database);
  const streams = new Map<string, OldEvent[]>();
  for (let s = 0; s < 4; s += 1) streams.set(`thing-${s}`, oldEvents(s));
  // Two appends per stream, interleaved, so the log order mixes streams.
  for (const half of [0, 1]) {
    for (const [streamId, events] of streams) {
      const cut = Math.ceil(events.length / 2);
      const part = half === 0 ? events.slice(0, cut) : events.slice(cut);
      if (part.length > 0) await appendOld(database, streamId, part);
    }
  }
  const victim = streams.get('thing-2')?.[1];
  if (!victim) throw new Error('fixture has no thing-2 revision 1');
  await database.pool.query(
    `UPDATE event_store.events SET data = '"rewritten after the fact"'::jsonb WHERE event_id = $1`,
    [victim.id],
  );
  const { rows } = await database.pool.query<{ max: string }>(
    'SELECT max(position)::text AS max FROM event_store.events',
  );
  return {
    streams,
    tampered: { streamId: 'thing-2', id: victim.id },
    maxPosition: BigInt(rows[0]?.max ?? 0),
  };
};

const expectedContent = (streamId: string, event: OldEvent): string =>
  canonicalize({
    id: event.id,
    streamId,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  }) ?? '';

const describeMigration = (
  name: string,
  open: () => Promise<{ database: Database; cleanup: () => Promise<void> }>,
): void => {
  describe(`migration 003 (canonical content) on ${name}`, () => {
    let database: Database;
    let cleanup: () => Promise<void>;
    let store: PostgresEventStore;
    let written: Written;

    beforeAll(async () => {
      ({ database, cleanup } = await open());
      written = await writeOldDatabase(database);
      await migrate(database.pool, [eventStoreMigrations], logger);
      store = createPostgresEventStore({ database, logger });
    }, 120_000);

    afterAll(async () => {
      await store.close();
      await database.close();
      await cleanup();
    });

    it('given events written before the upgrade, when migrated, then each stores the RFC 8785 text its hash was computed from and reads back the same data', async () => {
      for (const [streamId, events] of written.streams) {
        const read = await store.readStream(streamId);
        expect(read.map((event) => event.id)).toEqual(events.map((event) => event.id));
        for (const [i, event] of events.entries()) {
          if (event.id === written.tampered.id) continue;
          const stored = read[i] as RecordedEvent;
          expect(stored.content).toBe(expectedContent(streamId, event));
          expect(stored.data).toEqual(JSON.parse(JSON.stringify(event.data)));
          expect(stored.metadata).toEqual(event.metadata);
        }
      }
    });

    it('given the converted log, when verified, then every chain holds except at the event altered before the upgrade, which is still named', async () => {
      for (const streamId of written.streams.keys()) {
        const broken = findChainBreak(await store.readStream(streamId));
        if (streamId === written.tampered.streamId) {
          expect(broken).toMatchObject({ streamId, revision: 1n });
          expect(broken?.reason).toContain('altered');
        } else {
          expect(broken).toBeNull();
        }
      }
      const report = await verifyLog({ eventStore: store });
      expect(report.problem).toMatchObject({
        kind: 'altered',
        streamId: written.tampered.streamId,
        revision: 1,
      });
    });

    it('given the converted table, when inspected, then the jsonb columns are gone and the old positions and order are kept', async () => {
      const { rows: columns } = await database.pool.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = 'event_store' AND table_name = 'events' ORDER BY column_name`,
      );
      expect(columns.map((c) => c.column_name)).toEqual([
        'content',
        'event_id',
        'event_type',
        'hash',
        'position',
        'prev_hash',
        'recorded_at',
        'stream_id',
        'stream_revision',
        'transaction_id',
      ]);
      const { rows } = await database.pool.query<{ max: string; n: string }>(
        'SELECT max(position)::text AS max, count(*)::text AS n FROM event_store.events',
      );
      const total = [...written.streams.values()].reduce((sum, events) => sum + events.length, 0);
      expect(rows[0]).toEqual({ max: written.maxPosition.toString(), n: String(total) });
    });

    it('given the converted log, when appending after it, then chains continue and positions follow the old ones', async () => {
      const streamId = 'thing-0';
      const [head] = await store.readStream(streamId, { direction: 'backwards', maxCount: 1 });
      const next = (text: string) => ({
        id: randomUUID(),
        type: 'ThingChanged',
        data: { text, n: 1e21 },
        metadata: metadata(7),
      });
      await store.append(streamId, [next('general path')], { expectedRevision: 'any' });
      await store.append(streamId, [next('after a read')], {
        expectedRevision: (head?.revision ?? 0n) + 1n,
      });
      const read = await store.readStream(streamId);
      expect(findChainBreak(read)).toBeNull();
      const added = read.slice(-2);
      expect(added.map((event) => (event.data as { text: string }).text)).toEqual([
        'general path',
        'after a read',
      ]);
      const { rows } = await database.pool.query<{ min: string }>(
        'SELECT min(position)::text AS min FROM event_store.events WHERE event_id = ANY($1::uuid[])',
        [added.map((event) => event.id)],
      );
      expect(BigInt(rows[0]?.min ?? '0')).toBeGreaterThan(written.maxPosition);
    });
  });
};

let server: ThrowawayDatabase;
describeMigration('server Postgres', async () => {
  server = await createThrowawayDatabase('content_migration');
  const database = await openDatabase({
    databaseUrl: server.url,
    dataDir: '',
    poolSize: 4,
    logger,
  });
  return { database, cleanup: () => server.drop() };
});

describeMigration('PGlite', async () => {
  const database = await openDatabase({ dataDir: 'memory://', poolSize: 1, logger });
  return { database, cleanup: () => Promise.resolve() };
});
