import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntakeForm } from '../../../lifecycle/intake-form.js';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import { RequestNotFound } from '../../../services/requests/errors.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { loadRequestAsOf, loadRequestHistory } from '../../../services/requests/time-travel.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

const logger = createLogger('silent');
let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;

const form: IntakeForm = {
  title: 'Keep a signed audit trail of approvals',
  problem: 'Auditors cannot tell who approved a stage change without asking the team.',
  product: 'cogitave-core',
  requester: 'carol',
  acceptanceCriteria: ['Every approval names its approver and merge commit in the history'],
  links: [],
  priority: 'high',
};

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('time_travel');
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 4, logger });
  await migrate(database.pool, [eventStoreMigrations], logger);
  store = createPostgresEventStore({ database, logger });
});

afterAll(async () => {
  await store.close();
  await database.close();
  await throwaway.drop();
});

describe('request time travel and history', () => {
  it('given a request accepted and then a rejected proposal, when read as of a position or an instant, then each view is the request as it stood', async () => {
    const handlers = createRequestCommandHandlers({ eventStore: store });
    const meta = (minute: number, actor = 'agent:alice') => ({
      commandId: randomUUID(),
      actor,
      at: `2026-11-30T09:${String(minute).padStart(2, '0')}:00.000Z`,
    });
    const { requestId } = await handlers.proposeIntake(form, meta(0));
    const accept = await handlers.proposeStageAdvance(
      { requestId, toStage: 'accepted', evidence: {}, rationale: 'Triage agrees.' },
      meta(1),
    );
    await handlers.approveProposal(
      { requestId, proposalId: accept.proposalId, decidedBy: 'bob', via: 'local' },
      meta(2, 'bob'),
    );
    const specify = await handlers.proposeStageAdvance(
      {
        requestId,
        toStage: 'specified',
        evidence: { specLink: 'https://example.com/adr/7' },
        rationale: 'ADR 7 is written.',
      },
      meta(3),
    );
    const beforeRejection = (await loadRequestHistory(store, requestId)).at(-1)!;
    await handlers.rejectProposal(
      {
        requestId,
        proposalId: specify.proposalId,
        decidedBy: 'bob',
        via: 'local',
        reason: 'ADR 7 is not approved yet.',
      },
      meta(4, 'bob'),
    );

    const now = await loadRequestAsOf(store, requestId);
    expect(now.state?.stage).toBe('accepted');
    expect(now.state?.pendingProposalId).toBeNull();

    const byPosition = await loadRequestAsOf(store, requestId, {
      position: beforeRejection.position,
    });
    expect(byPosition.state?.stage).toBe('accepted');
    expect(byPosition.state?.pendingProposalId).toBe(specify.proposalId);
    expect(byPosition.position).toBe(beforeRejection.position);

    const byInstant = await loadRequestAsOf(store, requestId, { at: '2026-11-30T09:01:30.000Z' });
    expect(byInstant.state?.stage).toBe('proposed');
    expect(byInstant.state?.pendingProposalId).toBe(accept.proposalId);

    const history = await loadRequestHistory(store, requestId);
    expect(history.map((entry) => [entry.type, entry.actor])).toEqual([
      ['RequestProposed', 'agent:alice'],
      ['StageAdvanceProposed', 'agent:alice'],
      ['StageAdvanceApproved', 'bob'],
      ['StageAdvanced', 'bob'],
      ['StageAdvanceProposed', 'agent:alice'],
      ['StageAdvanceRejected', 'bob'],
    ]);
    history.forEach((entry, i) => {
      expect(entry.prevHash).toBe(i === 0 ? null : history[i - 1]!.hash);
    });
  });

  it('given an unknown request or a bad instant, then a clear error', async () => {
    await expect(loadRequestAsOf(store, 'req-2026-9999')).rejects.toBeInstanceOf(RequestNotFound);
    await expect(loadRequestHistory(store, 'req-2026-9999')).rejects.toBeInstanceOf(
      RequestNotFound,
    );
    const handlers = createRequestCommandHandlers({ eventStore: store });
    const { requestId } = await handlers.proposeIntake(form, {
      commandId: randomUUID(),
      actor: 'agent:alice',
      at: '2026-11-30T10:00:00.000Z',
    });
    await expect(loadRequestAsOf(store, requestId, { at: 'yesterday' })).rejects.toBeInstanceOf(
      InvalidArgument,
    );
  });
});
