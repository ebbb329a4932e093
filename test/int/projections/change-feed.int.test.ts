import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Position } from '../../../services/event-store/types.js';
import { requestStreamId } from '../../../services/requests/events.js';
import {
  CHANGE_FEED_APPLICATION_NAME,
  createChangeFeed,
  type ChangeFeed,
  type ChangeSignal,
} from '../../../projections/change-feed.js';
import type { ChangeNotice } from '../../../projections/change-payload.js';
import { requestsProjection } from '../../../services/requests/read-model/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import {
  minute,
  openTestBed,
  proposed,
  requestEvent,
  silentLogger,
  type TestBed,
} from './support/fixtures.js';

const COLLECTION = 'cogitave://request/';

interface Harness {
  readonly bed: TestBed;
  readonly feed: ChangeFeed;
  readonly signals: ChangeSignal[];
  runner: ProjectionRunner;
  startRunner(): void;
  notices(): ChangeNotice[];
  propose(requestId: string): Promise<Position>;
  close(): Promise<void>;
}

const harness = async (kind: 'postgres' | 'pglite', label: string): Promise<Harness> => {
  const bed = await openTestBed(kind, label);
  const feed = createChangeFeed({
    database: bed.database,
    logger: silentLogger,
    reconnectDelayMs: 50,
    waitPollIntervalMs: 5000,
  });
  await feed.ready();
  const signals: ChangeSignal[] = [];
  feed.onChange((signal) => signals.push(signal));
  const make = (): ProjectionRunner =>
    createProjectionRunner({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      projections: [requestsProjection],
      lagProbeIntervalMs: 0,
      changeSink: feed,
    });
  const h: Harness = {
    bed,
    feed,
    signals,
    runner: make(),
    startRunner: () => {
      h.runner.start();
    },
    notices: () => signals.flatMap((signal) => (signal.kind === 'change' ? [signal.notice] : [])),
    propose: async (requestId) =>
      (
        await bed.store.append(
          requestStreamId(requestId),
          [requestEvent(proposed(requestId), 'agent:x', minute(1))],
          {
            expectedRevision: 'no_stream',
          },
        )
      ).position,
    close: async () => {
      await h.runner.stop();
      await feed.close();
      await bed.close();
    },
  };
  return h;
};

describe.each(['postgres', 'pglite'] as const)('change feed (%s)', (kind) => {
  let h: Harness;

  beforeAll(async () => {
    h = await harness(kind, 'proj_feed');
    h.startRunner();
  });

  afterAll(async () => {
    await h.close();
  });

  it('delivers every changed URI and a list change when a request is created', async () => {
    const positions = [
      await h.propose('req-1'),
      await h.propose('req-2'),
      await h.propose('req-3'),
    ];
    expect(await h.feed.waitForPosition('requests', positions[2]!, { timeoutMs: 10_000 })).toBe(
      true,
    );
    await expect
      .poll(() => h.notices().flatMap((n) => n.uris))
      .toEqual(
        expect.arrayContaining([
          'cogitave://request/req-1',
          'cogitave://request/req-2',
          'cogitave://request/req-3',
        ]),
      );
    const creations = h.notices().filter((n) => n.uris.length > 0);
    expect(creations.every((n) => n.collections.includes(COLLECTION))).toBe(true);
    expect(creations.every((n) => n.projection === 'requests' && !n.truncated)).toBe(true);
  });

  it('names a changed resource without a list change when membership is unchanged', async () => {
    h.signals.length = 0;
    const { position } = await h.bed.store.append(
      requestStreamId('req-2'),
      [
        requestEvent(
          {
            type: 'RequestWithdrawn',
            data: { requestId: 'req-2', withdrawnBy: 'agent:x', reason: 'dup' },
          },
          'agent:x',
          minute(2),
        ),
      ],
      { expectedRevision: 0n },
    );
    expect(await h.feed.waitForPosition('requests', position, { timeoutMs: 10_000 })).toBe(true);
    await expect
      .poll(() => h.notices())
      .toEqual([
        {
          projection: 'requests',
          position,
          uris: ['cogitave://request/req-2'],
          collections: [],
          // The product of each changed resource rides along, so only its readers hear of it.
          products: { 'cogitave://request/req-2': expect.any(String) as string },
        },
      ]);
  });

  it('waits for a position (read-your-writes) and gives up after the timeout', async () => {
    const position = await h.propose('req-4');
    expect(await h.feed.waitForPosition('requests', position, { timeoutMs: 10_000 })).toBe(true);
    const beyond = 'ffffffffffffffff-0000000000000000' as Position;
    const started = Date.now();
    expect(await h.feed.waitForPosition('requests', beyond, { timeoutMs: 200 })).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('change feed (postgres): size limit and reconnects', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await harness('postgres', 'proj_feed_pg');
  });

  afterAll(async () => {
    await h.close();
  });

  it('sends the collections with truncated when a batch changed too many URIs', async () => {
    // Appended before the runner starts (one after the other, so the last is the log's end):
    // the catch-up applies them in one batch.
    let last: Position | undefined;
    for (let i = 0; i < 400; i += 1) {
      last = await h.propose(`req-bulk-with-a-long-identifier-${String(i).padStart(4, '0')}`);
    }
    h.startRunner();
    expect(await h.feed.waitForPosition('requests', last!, { timeoutMs: 20_000 })).toBe(true);
    // One catch-up batch normally; the visible end of the log may split it, so: at least one
    // notice was cut to its collection, and every cut notice names no URI.
    await expect.poll(() => h.notices().some((n) => n.truncated)).toBe(true);
    for (const notice of h.notices().filter((n) => n.truncated)) {
      expect(notice).toMatchObject({ projection: 'requests', uris: [], collections: [COLLECTION] });
    }
    await expect.poll(() => h.notices().at(-1)?.position).toBe(last);
  });

  it('reconnects after its connection is terminated and signals resync', async () => {
    h.signals.length = 0;
    const terminated = await h.bed.database.pool.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = $1`,
      [CHANGE_FEED_APPLICATION_NAME],
    );
    expect(terminated.rows).toEqual([{ ok: true }]);
    await expect
      .poll(() => h.signals.some((signal) => signal.kind === 'resync'), { timeout: 10_000 })
      .toBe(true);

    const position = await h.propose('req-after-reconnect');
    await expect
      .poll(
        () =>
          h
            .notices()
            .some(
              (n) =>
                n.position === position &&
                n.uris.includes('cogitave://request/req-after-reconnect'),
            ),
        {
          timeout: 10_000,
        },
      )
      .toBe(true);
  });
});
