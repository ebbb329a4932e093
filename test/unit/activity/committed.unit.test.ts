import { describe, expect, it } from 'vitest';
import { activityOfAppend } from '../../../services/activity/committed.js';
import { activityAppendObserver } from '../../../services/activity/log.js';
import type { EventToAppend } from '../../../services/event-store/types.js';
import { logActivity } from '../../../services/runtime/activity.js';
import { createCapturingLogger } from './capture.js';

/** Committed request events → activity lines: which events give a line, and its fields. */
const meta = (actor: string) => ({
  actor,
  correlationId: 'c-1',
  causationId: 'c-1',
  at: '2026-12-07T10:00:00.000Z',
});
let ids = 0;
const event = (type: string, data: unknown, actor = 'token:agent'): EventToAppend => ({
  id: `00000000-0000-4000-8000-${String((ids += 1)).padStart(12, '0')}`,
  type,
  data,
  metadata: meta(actor),
});

const lines = (events: EventToAppend[], local: 'console' | 'cli' = 'console') =>
  activityOfAppend(events, local).map(({ line }) => ({ activity: line.activity, ...line.fields }));

describe('activity lines of committed request events', () => {
  it('given an intake, then one proposal line naming who (actor, token name), the request and the stage', () => {
    expect(
      lines([
        event('RequestProposed', {
          requestId: 'req-2026-0001',
          product: 'widgets',
          proposedBy: 'token:agent',
        }),
      ]),
    ).toEqual([
      {
        activity: 'proposal',
        actor: 'token:agent',
        token: 'agent',
        request: 'req-2026-0001',
        stage: 'proposed',
        product: 'widgets',
        outcome: 'proposed',
      },
    ]);
  });

  it('given a stage advance proposed, then a proposal line with the proposal, from and to stage', () => {
    expect(
      lines([
        event('StageAdvanceProposed', {
          requestId: 'req-2026-0001',
          proposalId: 'req-2026-0001-p1',
          fromStage: 'proposed',
          toStage: 'accepted',
        }),
      ]),
    ).toEqual([
      expect.objectContaining({
        activity: 'proposal',
        request: 'req-2026-0001',
        proposal: 'req-2026-0001-p1',
        from: 'proposed',
        stage: 'accepted',
        outcome: 'proposed',
      }),
    ]);
  });

  it('given a local approval and the advance it caused, then one decision line with the stage reached and the channel of this process', () => {
    const approved = [
      event(
        'StageAdvanceApproved',
        {
          requestId: 'req-2026-0001',
          proposalId: 'req-2026-0001-p1',
          approvedBy: 'ada',
          via: 'local',
          mergeCommitSha: null,
        },
        'maintainer:ada',
      ),
      event('StageAdvanced', {
        requestId: 'req-2026-0001',
        proposalId: 'req-2026-0001-p1',
        fromStage: 'proposed',
        toStage: 'accepted',
      }),
    ];
    expect(lines(approved, 'cli')).toEqual([
      {
        activity: 'decision',
        actor: 'maintainer:ada',
        token: undefined,
        decision: 'approve',
        by: 'ada',
        via: 'cli',
        request: 'req-2026-0001',
        proposal: 'req-2026-0001-p1',
        stage: 'accepted',
        outcome: 'approved',
      },
    ]);
    expect(lines(approved, 'console')[0]).toMatchObject({ via: 'console' });
  });

  it('given decisions made on GitHub, then via github whatever the process, and the rule of a merge that did not count', () => {
    expect(
      lines([
        event('StageAdvanceRejected', {
          requestId: 'req-2026-0001',
          proposalId: 'req-2026-0001-p2',
          rejectedBy: 'grace',
          via: 'github',
          reason: 'merged by its proposer',
          mergeNotCounted: { rule: 'own_proposal' },
        }),
        event('IntakeRejected', {
          requestId: 'req-2026-0002',
          rejectedBy: 'grace',
          via: 'github',
          reason: 'x'.repeat(500),
        }),
      ]),
    ).toEqual([
      expect.objectContaining({
        decision: 'reject',
        via: 'github',
        outcome: 'rejected',
        reason: 'own_proposal',
      }),
      expect.objectContaining({
        decision: 'reject-intake',
        via: 'github',
        stage: 'rejected',
        outcome: 'rejected',
        reason: expect.stringMatching(/^x{199}…$/) as unknown,
      }),
    ]);
  });

  it('given a withdrawal by its owner and one by a maintainer, then via owner and via the channel', () => {
    const withdrawn = (via?: string) =>
      event('RequestWithdrawn', {
        requestId: 'req-2026-0003',
        withdrawnBy: 'token:agent',
        reason: 'duplicate',
        ...(via ? { via } : {}),
      });
    expect(lines([withdrawn(), withdrawn('local')], 'cli')).toEqual([
      expect.objectContaining({ decision: 'withdraw', via: 'owner', outcome: 'withdrawn' }),
      expect.objectContaining({ decision: 'withdraw', via: 'cli', outcome: 'withdrawn' }),
    ]);
  });

  it('given events that are no decision or proposal, then no line', () => {
    expect(
      lines([
        event('ProposalPullRequestOpened', { requestId: 'r', proposalId: 'r-p1' }),
        event('StageAdvanced', { requestId: 'r', proposalId: 'r-p1' }),
        event('NodePublished', { uid: 'a' }),
        event('RequestIdAllocated', { year: 2026 }),
      ]),
    ).toEqual([]);
  });
});

describe('the append observer', () => {
  it('given the same events appended twice in this process (a retried command), then their line is written once', () => {
    const { logger, records } = createCapturingLogger();
    const observe = activityAppendObserver(logger, 'console');
    const proposedEvent = event('RequestProposed', { requestId: 'req-2026-0009', product: 'p' });
    observe('request-req-2026-0009', [proposedEvent]);
    observe('request-req-2026-0009', [proposedEvent]);
    expect(records().filter((record) => record.activity === 'proposal')).toHaveLength(1);
  });

  it('leaves out fields that are undefined and writes at info', () => {
    const { logger, records } = createCapturingLogger();
    logActivity(logger, {
      activity: 'refused',
      msg: 'm',
      fields: { route: '/mcp', token: undefined },
    });
    expect(records()).toEqual([
      expect.objectContaining({ level: 30, activity: 'refused', route: '/mcp', msg: 'm' }),
    ]);
    expect(Object.keys(records()[0] ?? {})).not.toContain('token');
  });
});
