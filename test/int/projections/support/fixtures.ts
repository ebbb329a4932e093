import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../../../services/database/database.js';
import { migrate } from '../../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../../services/event-store/postgres/adapter.js';
import type { EventToAppend } from '../../../../services/event-store/types.js';
import { createLogger, type Logger } from '../../../../services/runtime/logger.js';
import type { RequestEvent } from '../../../../services/requests/events.js';
import { requestStreamId } from '../../../../services/requests/events.js';
import { createProjectionRunner, projectionMigrationSets } from '../../../../projections/runner.js';
import { requestsProjection } from '../../../../services/requests/read-model/projection.js';
import type { Projection } from '../../../../projections/types.js';
import { createThrowawayDatabase } from '../../../support/postgres.js';

export const silentLogger: Logger = createLogger('silent');

export interface TestBed {
  readonly database: Database;
  readonly store: PostgresEventStore;
  /** Server only: the throwaway database's URL. */
  readonly url: string | undefined;
  close(): Promise<void>;
}

/** A migrated database (server throwaway or in-memory PGlite) with the Postgres event store. */
export const openTestBed = async (
  kind: 'postgres' | 'pglite',
  label: string,
  projections: readonly Projection[] = [requestsProjection],
): Promise<TestBed> => {
  const throwaway = kind === 'postgres' ? await createThrowawayDatabase(label) : undefined;
  const database = await openDatabase({
    databaseUrl: throwaway?.url,
    dataDir: 'memory://',
    poolSize: 8,
    logger: silentLogger,
  });
  await migrate(
    database.pool,
    [eventStoreMigrations, ...projectionMigrationSets(projections)],
    silentLogger,
  );
  const store = createPostgresEventStore({ database, logger: silentLogger, pollIntervalMs: 100 });
  return {
    database,
    store,
    url: throwaway?.url,
    close: async () => {
      await store.close();
      await database.close();
      await throwaway?.drop();
    },
  };
};

/** A Request event with full metadata, as a decider would produce it. */
export const requestEvent = (
  event: RequestEvent,
  actor: string,
  at: string,
  correlationId: string = randomUUID(),
): EventToAppend => ({
  id: randomUUID(),
  type: event.type,
  data: event.data,
  metadata: { actor, correlationId, causationId: correlationId, at },
});

/** Minutes after a fixed instant, so expected timestamps are exact. */
export const minute = (n: number): string =>
  new Date(Date.UTC(2026, 0, 5, 9, 0) + n * 60_000).toISOString();

export const proposed = (requestId: string, title = `Title of ${requestId}`): RequestEvent => ({
  type: 'RequestProposed',
  data: {
    requestId,
    title,
    problem: `Problem of ${requestId}`,
    product: requestId.endsWith('1') ? 'docs' : 'learn',
    requester: 'team:docs',
    acceptanceCriteria: [
      { id: 'ac-1', text: 'Search returns the page' },
      { id: 'ac-2', text: 'Latency under 200 ms' },
    ],
    links: [{ url: 'https://example.com/spec' }],
    priority: 'high',
    proposedBy: 'agent:intake',
  },
});

/**
 * One request's lifecycle as event batches (each batch is one append): intake with its issue,
 * a proposal to `accepted` (PR, approval, advance), then, by `variant`, park in `deferred`, a
 * rejected proposal, a withdrawal, or an intake rejection.
 */
export const lifecycle = (requestId: string, variant: number, at: string): EventToAppend[][] => {
  const e = (event: RequestEvent, actor = 'agent:bulk'): EventToAppend =>
    requestEvent(event, actor, at);
  const intake = [
    e(proposed(requestId)),
    e({
      type: 'IntakeIssueOpened',
      data: {
        requestId,
        repository: 'cogitave/requests',
        issueNumber: 1,
        issueUrl: 'https://github.com/cogitave/requests/issues/1',
      },
    }),
  ];
  if (variant % 4 === 3) {
    return [
      [
        ...intake,
        e(
          {
            type: 'IntakeRejected',
            data: { requestId, rejectedBy: 'maint', via: 'local', reason: 'duplicate' },
          },
          'maint',
        ),
      ],
    ];
  }
  const p1 = `${requestId}-p1`;
  const p2 = `${requestId}-p2`;
  const accept = [
    e({
      type: 'StageAdvanceProposed',
      data: {
        requestId,
        proposalId: p1,
        fromStage: 'proposed',
        toStage: 'accepted',
        evidence: { notes: 'ok' },
        rationale: 'triaged',
        proposedBy: 'agent:bulk',
      },
    }),
    e({
      type: 'ProposalPullRequestOpened',
      data: {
        requestId,
        proposalId: p1,
        repository: 'cogitave/requests',
        branch: `proposal/${p1}`,
        pullNumber: 2,
        pullUrl: 'https://github.com/cogitave/requests/pull/2',
      },
    }),
    e(
      {
        type: 'StageAdvanceApproved',
        data: {
          requestId,
          proposalId: p1,
          approvedBy: 'maint',
          via: 'github',
          mergeCommitSha: 'abc123',
        },
      },
      'maint',
    ),
    e(
      {
        type: 'StageAdvanced',
        data: { requestId, proposalId: p1, fromStage: 'proposed', toStage: 'accepted' },
      },
      'maint',
    ),
  ];
  const propose2 = e({
    type: 'StageAdvanceProposed',
    data: {
      requestId,
      proposalId: p2,
      fromStage: 'accepted',
      toStage: 'deferred',
      evidence: {},
      rationale: 'later',
      proposedBy: 'agent:bulk',
    },
  });
  switch (variant % 4) {
    case 0:
      return [
        intake,
        accept,
        [
          propose2,
          e(
            {
              type: 'StageAdvanceApproved',
              data: {
                requestId,
                proposalId: p2,
                approvedBy: 'maint',
                via: 'local',
                mergeCommitSha: null,
              },
            },
            'maint',
          ),
          e(
            {
              type: 'StageAdvanced',
              data: { requestId, proposalId: p2, fromStage: 'accepted', toStage: 'deferred' },
            },
            'maint',
          ),
        ],
      ];
    case 1:
      return [
        intake,
        accept,
        [
          propose2,
          e(
            {
              type: 'StageAdvanceRejected',
              data: { requestId, proposalId: p2, rejectedBy: 'maint', via: 'github', reason: 'no' },
            },
            'maint',
          ),
        ],
      ];
    default:
      return [
        intake,
        accept,
        [
          e({
            type: 'RequestWithdrawn',
            data: { requestId, withdrawnBy: 'agent:bulk', reason: 'obsolete' },
          }),
        ],
      ];
  }
};

/**
 * Appends lifecycles until exactly `total` events are stored (the last one may end early),
 * `concurrency` appends at a time through the real store. Returns the number of requests.
 */
export const bulkAppend = async (
  store: PostgresEventStore,
  total: number,
  options: { readonly prefix: string; readonly concurrency?: number },
): Promise<number> => {
  const streams: EventToAppend[][] = [];
  let count = 0;
  for (let i = 0; count < total; i += 1) {
    const id = `${options.prefix}-${String(i).padStart(6, '0')}`;
    const events = lifecycle(id, i, minute(i % 10_000))
      .flat()
      .slice(0, total - count);
    streams.push(events);
    count += events.length;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < streams.length) {
      const index = next;
      next += 1;
      const events = streams[index]!;
      const id = `${options.prefix}-${String(index).padStart(6, '0')}`;
      await store.append(requestStreamId(id), events, { expectedRevision: 'no_stream' });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  return streams.length;
};

/**
 * Runs the requests projection live until it has applied `events` (what a replay is then
 * compared with), and stops it.
 */
export const projectLive = async (bed: TestBed, events: number): Promise<void> => {
  const runner = createProjectionRunner({
    database: bed.database,
    eventStore: bed.store,
    logger: silentLogger,
    projections: [requestsProjection],
  });
  runner.start();
  try {
    await runner.waitFor('requests', (s) => s.eventsApplied === events, 60_000);
  } finally {
    await runner.stop();
  }
};
