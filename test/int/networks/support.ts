import { randomUUID } from 'node:crypto';
import { createChangeFeed, type ChangeFeed } from '../../../projections/change-feed.js';
import { networksProjection } from '../../../services/networks/read-model/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import type { NetworkLimits } from '../../../services/networks/decide.js';
import { createNetworksService, type NetworksService } from '../../../services/networks/service.js';
import { openTestBed, silentLogger, type TestBed } from '../projections/support/fixtures.js';

/**
 * A throwaway Postgres database with the event store, the networks projection running, a
 * change feed (LISTEN) and the Networks service, as the gateway composes them.
 */
export interface NetworksBed {
  readonly bed: TestBed;
  readonly runner: ProjectionRunner;
  readonly changes: ChangeFeed;
  readonly service: NetworksService;
  /** Another service on the same stores, as another gateway replica would have. */
  replica(options?: { readonly limits?: NetworkLimits }): NetworksService;
  /** Events stored under `network-…` streams (optionally of one type), read with SQL. */
  networkEvents(type?: string): Promise<number>;
  close(): Promise<void>;
}

export const openNetworksBed = async (label: string): Promise<NetworksBed> => {
  const bed = await openTestBed('postgres', label, [networksProjection]);
  const runner = createProjectionRunner({
    database: bed.database,
    eventStore: bed.store,
    logger: silentLogger,
    projections: [networksProjection],
    lagProbeIntervalMs: 0,
  });
  runner.start();
  const changes = createChangeFeed({
    database: bed.database,
    logger: silentLogger,
    waitPollIntervalMs: 100,
  });
  await changes.ready();
  const replica = (options: { readonly limits?: NetworkLimits } = {}): NetworksService =>
    createNetworksService({
      eventStore: bed.store,
      db: bed.database.pool,
      changes,
      readYourWritesTimeoutMs: 20_000,
      ...options,
    });
  return {
    bed,
    runner,
    changes,
    service: replica(),
    replica,
    networkEvents: async (type) => {
      const { rows } = await bed.database.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM event_store.events
          WHERE stream_id LIKE 'network-%' AND ($1::text IS NULL OR event_type = $1)`,
        [type ?? null],
      );
      return Number(rows[0]?.n);
    },
    close: async () => {
      await runner.stop();
      await changes.close();
      await bed.close();
    },
  };
};

let sequence = 0;

/** Command metadata with a fresh UUID; `at` advances a minute per call. */
export const metaFor = (actor = 'agent:builder', commandId?: string) => {
  sequence += 1;
  return {
    commandId: commandId ?? randomUUID(),
    actor,
    at: new Date(Date.UTC(2026, 10, 30, 9, 0) + sequence * 60_000).toISOString(),
  };
};
