import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import {
  ApprovalNotCounted,
  DefinitionOfDoneUnmet,
  NotRequestOwner,
  ProposalAlreadyPending,
  RequestChanged,
  RequestClosed,
  RequestNotFound,
} from '../../../services/requests/errors.js';
import { commandEventId } from '../../../services/commands/event-ids.js';
import { eventMetadata } from '../../../services/commands/metadata.js';
import { requestStreamId } from '../../../services/requests/events.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import {
  formatRequestId,
  intakeCommandStreamId,
  REQUEST_ID_ALLOCATED,
  requestIdCounterStreamId,
} from '../../../services/requests/request-ids.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { allocatedEvents, form, meta } from './support.js';

const logger = createLogger('silent');

let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;
let handlers: RequestCommandHandlers;

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('requests');
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 20, logger });
  await migrate(database.pool, [eventStoreMigrations], logger);
  store = createPostgresEventStore({ database, logger, pollIntervalMs: 200 });
  handlers = createRequestCommandHandlers({ eventStore: store });
});

afterAll(async () => {
  await store.close();
  await database.close();
  await throwaway.drop();
});

/**
 * How many events the whole store holds: unchanged means nothing was appended anywhere. Read
 * with SQL because readAll deliberately lags behind transactions still in flight.
 */
const head = async (): Promise<number> => {
  const { rows } = await database.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM event_store.events',
  );
  return Number(rows[0]?.n);
};
const streamOf = (requestId: string) => store.readStream(requestStreamId(requestId));

const accept = (requestId: string) => ({
  requestId,
  toStage: 'accepted' as const,
  evidence: {},
  rationale: 'Triage agrees the problem is real.',
});

describe('request command handlers (Postgres)', () => {
  it('given an intake, when it is recorded, proposed, PR-linked and approved, then the stream holds each fact with full metadata', async () => {
    const intakeMeta = meta(2026);
    const { requestId, revision } = await handlers.proposeIntake(form, intakeMeta);
    expect(requestId).toBe('req-2026-0001');
    expect(revision).toBe(0n);

    await handlers.recordIntakeIssue(
      {
        requestId,
        repository: 'cogitave/requests',
        issueNumber: 1,
        issueUrl: 'https://github.com/cogitave/requests/issues/1',
      },
      meta(2026, 'reactor'),
    );
    const proposeMeta = { ...meta(2026), correlationId: 'conv-7', causationId: 'tool-call-9' };
    const proposed = await handlers.proposeStageAdvance(accept(requestId), proposeMeta);
    expect(proposed).toEqual({ requestId, revision: 2n, proposalId: `${requestId}-p1` });
    await handlers.recordProposalPullRequest(
      {
        requestId,
        proposalId: proposed.proposalId,
        repository: 'cogitave/requests',
        branch: 'cogitave/p1',
        pullNumber: 5,
        pullUrl: 'https://github.com/cogitave/requests/pull/5',
      },
      meta(2026, 'reactor'),
    );
    const approved = await handlers.approveProposal(
      {
        requestId,
        proposalId: proposed.proposalId,
        decidedBy: 'maintainer:bob',
        via: 'github',
        mergeCommitSha: 'a'.repeat(40),
      },
      meta(2026, 'webhook'),
    );
    expect(approved.revision).toBe(5n);

    const events = await streamOf(requestId);
    expect(events.map((e) => e.type)).toEqual([
      'RequestProposed',
      'IntakeIssueOpened',
      'StageAdvanceProposed',
      'ProposalPullRequestOpened',
      'StageAdvanceApproved',
      'StageAdvanced',
    ]);
    expect(events[0]!.id).toBe(commandEventId(intakeMeta.commandId, 0));
    expect(events[0]!.metadata).toEqual({
      actor: 'agent:alice',
      correlationId: intakeMeta.commandId,
      causationId: intakeMeta.commandId,
      at: intakeMeta.at,
    });
    expect(events[2]!.metadata).toMatchObject({
      correlationId: 'conv-7',
      causationId: 'tool-call-9',
    });
    expect(events[5]!.data).toMatchObject({ fromStage: 'proposed', toStage: 'accepted' });
  });

  it('given an accepted request, when a proposal misses its DoD or is approved by its proposer, then typed errors and nothing appended', async () => {
    const { requestId } = await handlers.proposeIntake(form, meta(2026));
    const p1 = await handlers.proposeStageAdvance(accept(requestId), meta(2026));
    const before = await head();
    await expect(
      handlers.approveProposal(
        { requestId, proposalId: p1.proposalId, decidedBy: 'Agent:Alice', via: 'github' },
        meta(2026, 'webhook'),
      ),
    ).rejects.toBeInstanceOf(ApprovalNotCounted);
    await handlers.approveProposal(
      { requestId, proposalId: p1.proposalId, decidedBy: 'maintainer:bob', via: 'github' },
      meta(2026),
    );
    const after = await head();
    const error = await handlers
      .proposeStageAdvance(
        { requestId, toStage: 'specified', evidence: {}, rationale: 'Spec is coming.' },
        meta(2026),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DefinitionOfDoneUnmet);
    expect((error as DefinitionOfDoneUnmet).details.unmetDod).toEqual([
      expect.objectContaining({ id: 'accepted.spec-link' }),
    ]);
    expect(await head()).toBe(after);
    expect(before).not.toBe(after);
  });

  it('given bad input, when any handler is called, then InvalidArgument naming the field and nothing appended', async () => {
    const before = await head();
    const failures = await Promise.all([
      handlers
        .proposeIntake({ ...form, acceptanceCriteria: ['It should be fast'] }, meta(2026))
        .catch((e: unknown) => e),
      handlers
        .proposeStageAdvance(
          { ...accept('req-2026-0001'), toStage: 'launched' as 'accepted' },
          meta(2026),
        )
        .catch((e: unknown) => e),
      handlers.withdraw({ requestId: 'REQ-1', reason: 'x' }, meta(2026)).catch((e: unknown) => e),
      handlers
        .recordIntakeIssue(
          {
            requestId: 'req-2026-0001',
            repository: 'cogitave/requests',
            issueNumber: 1,
            issueUrl: 'https://github.com/x',
          },
          { ...meta(2026), commandId: 'not-a-uuid' },
        )
        .catch((e: unknown) => e),
      handlers
        .recordProposalPullRequest(
          {
            requestId: 'req-2026-0001',
            proposalId: 'req-2026-0001-p1',
            repository: 'cogitave/requests',
            branch: 'cogitave/req-2026-0001-p1',
            pullNumber: 5,
            pullUrl: 'https://github.com/cogitave/requests/pull/5',
            headSha: 'main',
          },
          meta(2026),
        )
        .catch((e: unknown) => e),
    ]);
    for (const failure of failures) expect(failure).toBeInstanceOf(InvalidArgument);
    expect(String(failures[0])).toContain('acceptanceCriteria.0: "It should be fast"');
    expect(String(failures[1])).toContain('toStage: must be one of proposed, accepted');
    expect(String(failures[2])).toContain('requestId: must be a request id like "req-2026-0042"');
    expect(String(failures[3])).toContain('commandId: must be a UUID');
    expect(String(failures[4])).toContain('headSha: must be a 40-character lower-case hex');
    expect(await head()).toBe(before);
  });

  it('given a proposal was appended, when the same command is retried (same commandId), then the same result and nothing new', async () => {
    const { requestId } = await handlers.proposeIntake(form, meta(2026));
    const again = meta(2026);
    const first = await handlers.proposeStageAdvance(accept(requestId), again);
    // The request moves on before the retry arrives.
    await handlers.recordProposalPullRequest(
      {
        requestId,
        proposalId: first.proposalId,
        repository: 'o/r',
        branch: 'b',
        pullNumber: 1,
        pullUrl: 'https://github.com/o/r/pull/1',
      },
      meta(2026, 'reactor'),
    );
    const before = await head();
    expect(await handlers.proposeStageAdvance(accept(requestId), again)).toEqual(first);
    const approveMeta = meta(2026, 'webhook');
    const decision = {
      requestId,
      proposalId: first.proposalId,
      decidedBy: 'maintainer:bob',
      via: 'github' as const,
    };
    const approved = await handlers.approveProposal(decision, approveMeta);
    const afterApproval = await head();
    expect(await handlers.approveProposal(decision, approveMeta)).toEqual(approved);
    expect(await head()).toBe(afterApproval);
    expect(before).not.toBe(afterApproval);
    expect(await streamOf(requestId)).toHaveLength(5);
  });

  it('given a caller decided on an old revision, when it proposes with that expectedRevision, then RequestChanged and nothing appended', async () => {
    const { requestId } = await handlers.proposeIntake(form, meta(2026));
    await handlers.recordIntakeIssue(
      { requestId, repository: 'o/r', issueNumber: 3, issueUrl: 'https://github.com/o/r/issues/3' },
      meta(2026, 'reactor'),
    );
    const error = await handlers
      .proposeStageAdvance({ ...accept(requestId), expectedRevision: 0n }, meta(2026))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestChanged);
    expect((error as RequestChanged).code).toBe('WRONG_EXPECTED_VERSION');
    expect(String(error)).toContain('reload it (get_request) and retry');
    expect(await streamOf(requestId)).toHaveLength(2);
    expect(
      (
        await handlers.proposeStageAdvance(
          { ...accept(requestId), expectedRevision: 1n },
          meta(2026),
        )
      ).revision,
    ).toBe(2n);
  });

  it('given requests, when proposals are rejected, intakes rejected and requests withdrawn, then each is recorded once and closed requests refuse more', async () => {
    const a = await handlers.proposeIntake(form, meta(2026));
    const p1 = await handlers.proposeStageAdvance(accept(a.requestId), meta(2026));
    const decision = {
      requestId: a.requestId,
      proposalId: p1.proposalId,
      decidedBy: 'maintainer:bob',
      via: 'github' as const,
      reason: 'Needs a clearer problem.',
    };
    const rejected = await handlers.rejectProposal(decision, meta(2026, 'webhook'));
    const before = await head();
    // A redelivered webhook (new commandId): recorded already, so nothing is appended.
    expect(await handlers.rejectProposal(decision, meta(2026, 'webhook'))).toEqual(rejected);
    expect(await head()).toBe(before);
    await expect(
      handlers.withdraw(
        { requestId: a.requestId, reason: 'Not mine.' },
        meta(2026, 'agent:mallory'),
      ),
    ).rejects.toBeInstanceOf(NotRequestOwner);
    await handlers.withdraw(
      { requestId: a.requestId, reason: 'Solved elsewhere.' },
      meta(2026, 'carol'),
    );
    await expect(
      handlers.proposeStageAdvance(accept(a.requestId), meta(2026)),
    ).rejects.toBeInstanceOf(RequestClosed);

    const b = await handlers.proposeIntake(form, meta(2026));
    await handlers.rejectIntake(
      {
        requestId: b.requestId,
        decidedBy: 'maintainer:bob',
        via: 'local',
        reason: 'Duplicate of req-2026-0001.',
      },
      meta(2026, 'maintainer:bob'),
    );
    expect((await streamOf(b.requestId)).map((e) => e.type)).toEqual([
      'RequestProposed',
      'IntakeRejected',
    ]);
    expect((await streamOf(a.requestId)).map((e) => e.type)).toEqual([
      'RequestProposed',
      'StageAdvanceProposed',
      'StageAdvanceRejected',
      'RequestWithdrawn',
    ]);
    await expect(
      handlers.withdraw({ requestId: 'req-2026-9999', reason: 'Typo.' }, meta(2026)),
    ).rejects.toBeInstanceOf(RequestNotFound);
    await expect(
      handlers.proposeStageAdvance(
        { ...accept('req-2026-9999'), expectedRevision: 3n },
        meta(2026),
      ),
    ).rejects.toBeInstanceOf(RequestNotFound);
  });

  it('given one request, when 64 stage proposals race, then exactly one is appended and the rest get pending-proposal or stale-revision errors', async () => {
    const { requestId } = await handlers.proposeIntake(form, meta(2026));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 64 }, (_, i) =>
        handlers.proposeStageAdvance(accept(requestId), meta(2026, `agent:${i}`)),
      ),
    );
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(63);
    for (const reason of lost) {
      expect(
        reason instanceof ProposalAlreadyPending || reason instanceof RequestChanged,
        String(reason),
      ).toBe(true);
    }
    const events = await streamOf(requestId);
    expect(events.map((e) => e.type)).toEqual(['RequestProposed', 'StageAdvanceProposed']);
  });
});

describe('request id allocation (Postgres)', () => {
  it('given 32 concurrent intakes in one year, when they finish, then they hold 32 distinct ids with no gaps', async () => {
    const results = await Promise.all(
      Array.from({ length: 32 }, () => handlers.proposeIntake(form, meta(2030))),
    );
    const ids = results.map((r) => r.requestId).sort();
    expect(ids).toEqual(Array.from({ length: 32 }, (_, i) => formatRequestId(2030, i + 1)));
    expect(await store.readStream(requestIdCounterStreamId(2030))).toHaveLength(32);
    for (const id of ids)
      expect((await streamOf(id)).map((e) => e.type)).toEqual(['RequestProposed']);
  });

  it('given an intake succeeded, when it is retried with the same commandId (also 8 times at once), then the same id and nothing appended', async () => {
    const intakeMeta = meta(2031);
    const first = await handlers.proposeIntake(form, intakeMeta);
    const before = await head();
    expect(await handlers.proposeIntake(form, intakeMeta)).toEqual(first);
    const retries = await Promise.all(
      Array.from({ length: 8 }, () => handlers.proposeIntake(form, intakeMeta)),
    );
    for (const retry of retries) expect(retry).toEqual(first);
    expect(await head()).toBe(before);
    expect(await store.readStream(requestIdCounterStreamId(2031))).toHaveLength(1);
  });

  it('given 8 copies of one new intake race, when they finish, then one id is allocated and one request exists', async () => {
    const intakeMeta = meta(2032);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => handlers.proposeIntake(form, intakeMeta)),
    );
    expect(new Set(results.map((r) => r.requestId))).toEqual(new Set(['req-2032-0001']));
    expect(await store.readStream(requestIdCounterStreamId(2032))).toHaveLength(1);
    expect(await streamOf('req-2032-0001')).toHaveLength(1);
  });

  it('given an intake crashed right after taking its number, when the next intake runs and the crashed one is retried, then both requests exist and no number is lost', async () => {
    const crashed = meta(2033, 'agent:crashy');
    // What a maker leaves behind if it dies between allocating and creating its request.
    await store.append(requestIdCounterStreamId(2033), allocatedEvents(2033, 1, [crashed]), {
      expectedRevision: 'no_stream',
    });
    const next = await handlers.proposeIntake(form, meta(2033));
    expect(next.requestId).toBe('req-2033-0002');
    const completed = await streamOf('req-2033-0001');
    expect(completed.map((e) => e.type)).toEqual(['RequestProposed']);
    expect(completed[0]!.metadata.actor).toBe('agent:crashy');
    expect(completed[0]!.id).toBe(commandEventId(crashed.commandId, 0));

    const before = await head();
    expect(await handlers.proposeIntake(form, crashed)).toMatchObject({
      requestId: 'req-2033-0001',
      revision: 0n,
      position: completed[0]!.position,
      proposed: { type: 'RequestProposed', data: { proposedBy: 'agent:crashy' } },
    });
    expect(await head()).toBe(before);
    expect(await store.readStream(intakeCommandStreamId(crashed.commandId))).toHaveLength(1);
  });

  it('given 9999 ids taken in a year, when the next intake runs, then its id has five digits', async () => {
    const filler = meta(2034, 'agent:filler');
    for (let page = 0; page < 10; page += 1) {
      const events = Array.from({ length: page === 9 ? 999 : 1000 }, (_, i) => {
        const sequence = page * 1000 + i + 1;
        const commandId = randomUUID();
        return {
          id: commandEventId(commandId, 'allocate'),
          type: REQUEST_ID_ALLOCATED,
          data: {
            requestId: formatRequestId(2034, sequence),
            year: 2034,
            sequence,
            commandId,
            payload: { intake: form, meta: { ...filler, commandId } },
          },
          metadata: eventMetadata(filler),
        };
      });
      await store.append(requestIdCounterStreamId(2034), events, {
        expectedRevision: page === 0 ? 'no_stream' : BigInt(page * 1000 - 1),
      });
    }
    expect((await handlers.proposeIntake(form, meta(2034))).requestId).toBe('req-2034-10000');
    expect(await streamOf('req-2034-10000')).toHaveLength(1);
  });
});
