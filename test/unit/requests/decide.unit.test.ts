import { describe, expect, it } from 'vitest';
import type { IntakeForm } from '../../../lifecycle/intake-form.js';
import { decide } from '../../../services/requests/decide.js';
import {
  createPrincipalDirectory,
  principalTableSchema,
} from '../../../services/principals/principals.js';
import {
  ApprovalNotCounted,
  DefinitionOfDoneUnmet,
  NotRequestOwner,
  ProposalAlreadyPending,
  ProposalNotFound,
  RecordConflict,
  RequestClosed,
  RequestNotFound,
  TransitionNotAllowed,
} from '../../../services/requests/errors.js';
import { initialState } from '../../../services/requests/state.js';
import { EVIDENCE_TO_LEAVE, INTAKE } from '../lifecycle/fixtures.js';
import {
  approvedAndAdvanced,
  given,
  historyTo,
  MAINTAINER,
  meta,
  moved,
  OWNER,
  pid,
  REQUEST_ID,
  requestProposed,
  stageAdvanceProposed,
} from './fixtures.js';

const intake: IntakeForm = {
  title: INTAKE.title,
  problem: INTAKE.problem,
  product: INTAKE.product,
  requester: INTAKE.requester,
  acceptanceCriteria: INTAKE.acceptanceCriteria.map((criterion) => criterion.text),
  links: [{ url: 'https://example.org/report' }],
  priority: 'high',
};

const issue = {
  requestId: REQUEST_ID,
  repository: 'cogitave/requests',
  issueNumber: 12,
  issueUrl: 'https://github.com/cogitave/requests/issues/12',
};
const pull = (n: number, pullNumber = 40 + n) => ({
  requestId: REQUEST_ID,
  proposalId: pid(n),
  repository: 'cogitave/requests',
  branch: `cogitave/${pid(n)}`,
  pullNumber,
  pullUrl: `https://github.com/cogitave/requests/pull/${pullNumber}`,
});
const decision = (n: number, decidedBy = MAINTAINER) => ({
  requestId: REQUEST_ID,
  proposalId: pid(n),
  decidedBy,
  via: 'github' as const,
});
const advance = (toStage: Parameters<typeof stageAdvanceProposed>[2], evidence = {}) => ({
  requestId: REQUEST_ID,
  toStage,
  evidence,
  rationale: 'Ready to move on.',
});

describe('ProposeIntake', () => {
  it('given no request, when an intake is proposed, then RequestProposed holds the form with criterion ids and the proposer', () => {
    const events = decide(
      { type: 'ProposeIntake', requestId: REQUEST_ID, intake, meta: meta() },
      initialState,
    );
    expect(events).toEqual([
      {
        type: 'RequestProposed',
        data: {
          requestId: REQUEST_ID,
          ...intake,
          acceptanceCriteria: [
            { id: 'ac-1', text: INTAKE.acceptanceCriteria[0]!.text },
            { id: 'ac-2', text: INTAKE.acceptanceCriteria[1]!.text },
          ],
          proposedBy: OWNER,
        },
      },
    ]);
  });

  it('given the request exists, when an intake names it again, then RecordConflict', () => {
    expect(() =>
      decide(
        { type: 'ProposeIntake', requestId: REQUEST_ID, intake, meta: meta() },
        given(requestProposed()),
      ),
    ).toThrow(RecordConflict);
  });

  it('given RequestProposed, when folded, then the request is a draft in proposed at revision 0', () => {
    const state = given(requestProposed());
    expect(state).toMatchObject({
      status: 'draft',
      stage: 'proposed',
      requestId: REQUEST_ID,
      proposedBy: OWNER,
      version: 0,
    });
  });
});

describe('RecordIntakeIssue', () => {
  it('given a draft, when its issue is recorded, then IntakeIssueOpened', () => {
    expect(
      decide(
        { type: 'RecordIntakeIssue', input: issue, meta: meta('reactor') },
        given(requestProposed()),
      ),
    ).toEqual([{ type: 'IntakeIssueOpened', data: issue }]);
  });

  it('given the issue is recorded, when the same issue is recorded again (any case), then no events', () => {
    const state = given(requestProposed(), { type: 'IntakeIssueOpened', data: issue });
    expect(
      decide(
        {
          type: 'RecordIntakeIssue',
          input: { ...issue, repository: 'Cogitave/Requests' },
          meta: meta(),
        },
        state,
      ),
    ).toEqual([]);
  });

  it('given an issue is recorded, when another issue is recorded, then RecordConflict names the recorded one', () => {
    const state = given(requestProposed(), { type: 'IntakeIssueOpened', data: issue });
    expect(() =>
      decide(
        { type: 'RecordIntakeIssue', input: { ...issue, issueNumber: 13 }, meta: meta() },
        state,
      ),
    ).toThrow(/already has intake issue cogitave\/requests#12/);
  });

  it('given a withdrawn request, when its issue is recorded late, then it is still recorded (a fact from GitHub)', () => {
    expect(
      decide(
        { type: 'RecordIntakeIssue', input: issue, meta: meta() },
        given(...historyTo('withdrawn')),
      ),
    ).toHaveLength(1);
  });

  it('given no request, when an issue is recorded, then RequestNotFound', () => {
    expect(() =>
      decide({ type: 'RecordIntakeIssue', input: issue, meta: meta() }, initialState),
    ).toThrow(RequestNotFound);
  });
});

describe('RejectIntake', () => {
  const reject = {
    requestId: REQUEST_ID,
    decidedBy: MAINTAINER,
    via: 'github' as const,
    reason: 'Out of scope.',
  };

  it('given a draft, when its intake is rejected, then IntakeRejected and the request is closed as rejected', () => {
    const events = decide(
      { type: 'RejectIntake', input: reject, meta: meta(MAINTAINER) },
      given(requestProposed()),
    );
    expect(events).toEqual([
      {
        type: 'IntakeRejected',
        data: {
          requestId: REQUEST_ID,
          rejectedBy: MAINTAINER,
          via: 'github',
          reason: 'Out of scope.',
        },
      },
    ]);
    expect(given(requestProposed(), ...events)).toMatchObject({
      status: 'closed',
      stage: 'rejected',
    });
  });

  it('given a rejected intake, when rejected again, then no events', () => {
    expect(
      decide(
        { type: 'RejectIntake', input: reject, meta: meta() },
        given(...historyTo('rejected')),
      ),
    ).toEqual([]);
  });

  it('given an accepted request, when its intake is rejected, then TransitionNotAllowed lists what a proposal may target', () => {
    const run = () =>
      decide(
        { type: 'RejectIntake', input: reject, meta: meta() },
        given(...historyTo('accepted')),
      );
    expect(run).toThrow(TransitionNotAllowed);
    expect(run).toThrow(
      /Stages a proposal may target from "accepted": specified, deferred, rejected, superseded/,
    );
  });

  it('given a withdrawn request, when its intake is rejected, then RequestClosed', () => {
    expect(() =>
      decide(
        { type: 'RejectIntake', input: reject, meta: meta() },
        given(...historyTo('withdrawn')),
      ),
    ).toThrow(RequestClosed);
  });
});

describe('ProposeStageAdvance', () => {
  it('given a draft, when accepted is proposed, then StageAdvanceProposed p1 from proposed by the actor', () => {
    const events = decide(
      { type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta('agent:dave') },
      given(requestProposed()),
    );
    expect(events).toEqual([
      {
        type: 'StageAdvanceProposed',
        data: {
          requestId: REQUEST_ID,
          proposalId: pid(1),
          fromStage: 'proposed',
          toStage: 'accepted',
          evidence: {},
          rationale: 'Ready to move on.',
          proposedBy: 'agent:dave',
        },
      },
    ]);
    expect(given(requestProposed(), ...events)).toMatchObject({
      pendingProposalId: pid(1),
      stage: 'proposed',
    });
  });

  it('given p1 was rejected, when proposing again, then the new proposal is p2', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'StageAdvanceRejected',
      data: {
        requestId: REQUEST_ID,
        proposalId: pid(1),
        rejectedBy: MAINTAINER,
        via: 'github',
        reason: 'Not yet.',
      },
    });
    const [event] = decide(
      { type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta() },
      state,
    );
    expect(event?.type === 'StageAdvanceProposed' && event.data.proposalId).toBe(pid(2));
  });

  it('given a pending proposal, when a second is proposed, then ProposalAlreadyPending names the pending one', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'));
    const run = () =>
      decide({ type: 'ProposeStageAdvance', input: advance('superseded'), meta: meta() }, state);
    expect(run).toThrow(ProposalAlreadyPending);
    expect(run).toThrow(/Proposal req-2026-0001-p1 \(to "accepted"\) is still pending/);
  });

  it('given accepted, when in_review is proposed, then TransitionNotAllowed with the allowed stages in message and details', () => {
    try {
      decide(
        { type: 'ProposeStageAdvance', input: advance('in_review'), meta: meta() },
        given(...historyTo('accepted')),
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TransitionNotAllowed);
      expect((error as TransitionNotAllowed).code).toBe('FAILED_PRECONDITION');
      expect((error as TransitionNotAllowed).details.allowedStages).toEqual([
        'specified',
        'deferred',
        'rejected',
        'superseded',
        'withdrawn',
      ]);
      expect((error as Error).message).toContain('"in_review" cannot be reached from "accepted"');
    }
  });

  it('given specified without a rollback plan, when in_progress is proposed, then DefinitionOfDoneUnmet names the item id and what to attach', () => {
    const partial = { ...EVIDENCE_TO_LEAVE.specified, rollbackPlan: undefined };
    try {
      decide(
        { type: 'ProposeStageAdvance', input: advance('in_progress', partial), meta: meta() },
        given(...historyTo('specified')),
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionOfDoneUnmet);
      expect((error as DefinitionOfDoneUnmet).details.unmetDod).toEqual([
        {
          id: 'specified.rollback-plan',
          description: expect.stringContaining('Attach evidence.rollbackPlan') as string,
          detail: 'evidence.rollbackPlan is missing',
        },
      ]);
      expect((error as Error).message).toContain(
        '[specified.rollback-plan] evidence.rollbackPlan is missing',
      );
    }
  });

  it('given a request, when its owner proposes withdrawn, then it is only a pending proposal', () => {
    const events = decide(
      { type: 'ProposeStageAdvance', input: advance('withdrawn'), meta: meta() },
      given(...historyTo('accepted')),
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'StageAdvanceProposed',
        data: expect.objectContaining({ fromStage: 'accepted', toStage: 'withdrawn' }) as object,
      }),
    ]);
    expect(given(...historyTo('accepted'), ...events)!.stage).toBe('accepted');
  });

  it('given a request, when someone who is not its owner proposes withdrawn, then the refusal names its owners', () => {
    const run = () =>
      decide(
        { type: 'ProposeStageAdvance', input: advance('withdrawn'), meta: meta('agent:mallory') },
        given(...historyTo('accepted')),
      );
    expect(run).toThrow(/may withdraw it or ask to, and agent:mallory is neither/);
  });

  it('given a request deferred from specified, when accepted is proposed, then the refusal names the resume stage', () => {
    expect(() =>
      decide(
        { type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta() },
        given(...historyTo('deferred', 'specified')),
      ),
    ).toThrow(/resumes to the stage it left \("specified"\)/);
  });

  it('given a done request, when anything is proposed, then RequestClosed', () => {
    expect(() =>
      decide(
        { type: 'ProposeStageAdvance', input: advance('in_progress'), meta: meta() },
        given(...historyTo('done')),
      ),
    ).toThrow(RequestClosed);
  });

  it('given no request, when a stage is proposed, then RequestNotFound', () => {
    expect(() =>
      decide(
        { type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta() },
        initialState,
      ),
    ).toThrow(RequestNotFound);
  });
});

describe('RecordProposalPullRequest', () => {
  const pending = () => given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'));

  it('given a pending proposal, when its PR is recorded, then ProposalPullRequestOpened', () => {
    expect(
      decide({ type: 'RecordProposalPullRequest', input: pull(1), meta: meta() }, pending()),
    ).toEqual([{ type: 'ProposalPullRequestOpened', data: pull(1) }]);
  });

  it('given a pending proposal, when its PR is recorded with the commit the reactor made, then the event keeps that commit and the fold holds it', () => {
    const headSha = 'ab'.repeat(20);
    const events = decide(
      { type: 'RecordProposalPullRequest', input: { ...pull(1), headSha }, meta: meta() },
      pending(),
    );
    expect(events).toEqual([{ type: 'ProposalPullRequestOpened', data: { ...pull(1), headSha } }]);
    const state = given(
      requestProposed(),
      stageAdvanceProposed(1, 'proposed', 'accepted'),
      ...events,
    );
    expect(state?.proposals.find((p) => p.proposalId === pid(1))?.pullRequest).toMatchObject({
      headSha,
    });
  });

  it('given its PR is recorded, when recorded again, then no events', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'ProposalPullRequestOpened',
      data: pull(1),
    });
    expect(
      decide({ type: 'RecordProposalPullRequest', input: pull(1), meta: meta() }, state),
    ).toEqual([]);
  });

  it('given its PR is recorded, when another PR is recorded, then RecordConflict', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'ProposalPullRequestOpened',
      data: pull(1),
    });
    expect(() =>
      decide({ type: 'RecordProposalPullRequest', input: pull(1, 99), meta: meta() }, state),
    ).toThrow(RecordConflict);
  });

  it('given proposal p1 only, when a PR of p7 is recorded, then ProposalNotFound lists p1', () => {
    expect(() =>
      decide({ type: 'RecordProposalPullRequest', input: pull(7), meta: meta() }, pending()),
    ).toThrow(/has no proposal req-2026-0001-p7; its proposals are req-2026-0001-p1/);
  });
});

describe('ApproveProposal', () => {
  const pending = () => given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'));

  it('given a pending proposal, when a maintainer approves it, then StageAdvanceApproved and StageAdvanced', () => {
    const events = decide(
      { type: 'ApproveProposal', input: decision(1), meta: meta('webhook') },
      pending(),
    );
    expect(events).toEqual(approvedAndAdvanced(1, 'proposed', 'accepted'));
    expect(
      given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), ...events),
    ).toMatchObject({
      status: 'active',
      stage: 'accepted',
      pendingProposalId: null,
      version: 3,
    });
  });

  it('given an approval, when folded, then the evidence of the proposal accumulates on the request', () => {
    const state = given(...historyTo('in_progress'));
    expect(state?.evidence).toEqual({
      ...EVIDENCE_TO_LEAVE.accepted,
      ...EVIDENCE_TO_LEAVE.specified,
    });
  });

  it('given an approved proposal, when approved again (redelivered webhook), then no events', () => {
    expect(
      decide(
        { type: 'ApproveProposal', input: decision(1), meta: meta() },
        given(...historyTo('accepted')),
      ),
    ).toEqual([]);
  });

  it('given a rejected proposal, when approved, then RecordConflict says to propose again', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'StageAdvanceRejected',
      data: {
        requestId: REQUEST_ID,
        proposalId: pid(1),
        rejectedBy: MAINTAINER,
        via: 'github',
        reason: 'No.',
      },
    });
    expect(() =>
      decide({ type: 'ApproveProposal', input: decision(1), meta: meta() }, state),
    ).toThrow(/was already rejected by maintainer:bob/);
  });

  it('given a pending proposal, when its proposer approves it, then ApprovalNotCounted (PERMISSION_DENIED)', () => {
    const run = () =>
      decide({ type: 'ApproveProposal', input: decision(1, OWNER), meta: meta() }, pending());
    expect(run).toThrow(ApprovalNotCounted);
    expect(run).toThrow(/another maintainer must approve/);
  });

  it("given a principal table linking the proposer's token to a login, when that login approves, then ApprovalNotCounted names the principal", () => {
    const principals = createPrincipalDirectory(
      principalTableSchema.parse({ alice: { tokens: ['alice-agent'], github: ['alice-gh'] } }),
    );
    const state = given(
      requestProposed(),
      stageAdvanceProposed(1, 'proposed', 'accepted', undefined, 'token:alice-agent'),
    );
    const run = () =>
      decide(
        { type: 'ApproveProposal', input: decision(1, 'alice-gh'), meta: meta(), principals },
        state,
      );
    expect(run).toThrow(ApprovalNotCounted);
    expect(run).toThrow(/principal alice/);
    // The console records a token's decision as the token itself: resolved as that token.
    const byToken = () =>
      decide(
        {
          type: 'ApproveProposal',
          input: { ...decision(1, 'token:alice-agent'), via: 'local' },
          meta: meta(),
          principals,
        },
        state,
      );
    expect(byToken).toThrow(ApprovalNotCounted);
    // Without the table the two identities are different people.
    expect(
      decide({ type: 'ApproveProposal', input: decision(1, 'alice-gh'), meta: meta() }, state),
    ).toHaveLength(2);
  });

  it('given a withdrawn request with a pending proposal, when approved, then RequestClosed', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'RequestWithdrawn',
      data: { requestId: REQUEST_ID, withdrawnBy: OWNER, reason: 'Changed my mind.' },
    });
    expect(() =>
      decide({ type: 'ApproveProposal', input: decision(1), meta: meta() }, state),
    ).toThrow(RequestClosed);
  });

  it('given no such proposal, when approved, then ProposalNotFound', () => {
    expect(() =>
      decide({ type: 'ApproveProposal', input: decision(2), meta: meta() }, pending()),
    ).toThrow(ProposalNotFound);
  });

  it('given a request deferred from in_progress, when its resume is approved, then it is back in in_progress with no resume stage', () => {
    const history = [
      ...historyTo('deferred', 'in_progress'),
      stageAdvanceProposed(5, 'deferred', 'in_progress', {}),
    ];
    const events = decide(
      { type: 'ApproveProposal', input: decision(5), meta: meta() },
      given(...history),
    );
    expect(given(...history)?.resumeStage).toBe('in_progress');
    expect(given(...history, ...events)).toMatchObject({
      stage: 'in_progress',
      resumeStage: null,
      status: 'active',
    });
  });
});

describe('RejectProposal', () => {
  it('given a pending proposal, when rejected without a reason, then StageAdvanceRejected with a default reason and nothing pending', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'));
    const events = decide({ type: 'RejectProposal', input: decision(1), meta: meta() }, state);
    expect(events).toEqual([
      {
        type: 'StageAdvanceRejected',
        data: {
          requestId: REQUEST_ID,
          proposalId: pid(1),
          rejectedBy: MAINTAINER,
          via: 'github',
          reason: 'Closed without approval.',
        },
      },
    ]);
    expect(
      given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), ...events),
    ).toMatchObject({ pendingProposalId: null, stage: 'proposed' });
  });

  it('given a rejected proposal, when rejected again, then no events', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'StageAdvanceRejected',
      data: {
        requestId: REQUEST_ID,
        proposalId: pid(1),
        rejectedBy: MAINTAINER,
        via: 'github',
        reason: 'No.',
      },
    });
    expect(decide({ type: 'RejectProposal', input: decision(1), meta: meta() }, state)).toEqual([]);
  });

  it('given an approved proposal, when rejected, then RecordConflict', () => {
    expect(() =>
      decide(
        { type: 'RejectProposal', input: decision(1), meta: meta() },
        given(...historyTo('accepted')),
      ),
    ).toThrow(RecordConflict);
  });

  it('given a withdrawn request with a pending proposal, when its PR is closed, then the rejection is still recorded', () => {
    const state = given(requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted'), {
      type: 'RequestWithdrawn',
      data: { requestId: REQUEST_ID, withdrawnBy: OWNER, reason: 'Changed my mind.' },
    });
    expect(
      decide({ type: 'RejectProposal', input: decision(1), meta: meta() }, state),
    ).toHaveLength(1);
  });
});

describe('Withdraw', () => {
  const input = { requestId: REQUEST_ID, reason: 'No longer needed.' };

  it('given an accepted request, when its intake proposer withdraws it, then RequestWithdrawn and it is closed', () => {
    const events = decide(
      { type: 'Withdraw', input, meta: meta(OWNER) },
      given(...historyTo('accepted')),
    );
    expect(events).toEqual([
      {
        type: 'RequestWithdrawn',
        data: { requestId: REQUEST_ID, withdrawnBy: OWNER, reason: 'No longer needed.' },
      },
    ]);
    expect(given(...historyTo('accepted'), ...events)).toMatchObject({
      status: 'closed',
      stage: 'withdrawn',
    });
  });

  it('given a request, when its requester withdraws it, then it is allowed', () => {
    expect(
      decide({ type: 'Withdraw', input, meta: meta(INTAKE.requester) }, given(requestProposed())),
    ).toHaveLength(1);
  });

  it('given a request, when someone else withdraws it, then NotRequestOwner (PERMISSION_DENIED)', () => {
    const run = () =>
      decide({ type: 'Withdraw', input, meta: meta('agent:mallory') }, given(requestProposed()));
    expect(run).toThrow(NotRequestOwner);
    expect(run).toThrow(/a maintainer can reject or withdraw it/);
  });

  it('given a withdrawn request, when withdrawn again, then no events', () => {
    expect(
      decide({ type: 'Withdraw', input, meta: meta() }, given(...historyTo('withdrawn'))),
    ).toEqual([]);
  });

  it('given a done request, when withdrawn, then RequestClosed', () => {
    expect(() =>
      decide({ type: 'Withdraw', input, meta: meta() }, given(...historyTo('done'))),
    ).toThrow(RequestClosed);
  });

  it('given a pending proposal, when withdrawn, then the request closes and nothing is pending', () => {
    const history = [requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted')];
    const events = decide({ type: 'Withdraw', input, meta: meta() }, given(...history));
    expect(given(...history, ...events)).toMatchObject({
      stage: 'withdrawn',
      pendingProposalId: null,
    });
  });
});

describe('evolve', () => {
  it('given a history to done, when folded, then status, stage and revision follow it', () => {
    const history = historyTo('done');
    expect(given(...history)).toMatchObject({
      status: 'closed',
      stage: 'done',
      version: history.length - 1,
    });
    expect(given(...history)?.proposals.map((p) => p.outcome)).toEqual(Array(6).fill('approved'));
  });

  it('given a deferral from accepted, when folded, then the resume stage is kept', () => {
    expect(given(...historyTo('deferred'))).toMatchObject({
      status: 'active',
      stage: 'deferred',
      resumeStage: 'accepted',
    });
  });

  it('given a back-edge in_review → in_progress, when folded, then the request is in_progress again', () => {
    expect(given(...historyTo('in_review'), ...moved(5, 'in_review', 'in_progress'))?.stage).toBe(
      'in_progress',
    );
  });
});

describe('MaintainerWithdraw', () => {
  const input = {
    requestId: REQUEST_ID,
    decidedBy: 'bob',
    via: 'local' as const,
    reason: 'Superseded by the audit roadmap.',
  };
  const command = { type: 'MaintainerWithdraw' as const, input, meta: meta(MAINTAINER) };

  it('given an accepted request with a pending proposal, when a maintainer withdraws it, then RequestWithdrawn names the maintainer and nothing is pending', () => {
    const history = [...historyTo('accepted'), stageAdvanceProposed(2, 'accepted', 'specified')];
    const events = decide(command, given(...history));
    expect(events).toEqual([
      {
        type: 'RequestWithdrawn',
        data: {
          requestId: REQUEST_ID,
          withdrawnBy: 'bob',
          reason: 'Superseded by the audit roadmap.',
          via: 'local',
        },
      },
    ]);
    const after = given(...history, ...events);
    expect(after!.stage).toBe('withdrawn');
    expect(after!.pendingProposalId).toBeNull();
  });

  it('given a withdrawn request, when a maintainer withdraws it again, then no events', () => {
    expect(decide(command, given(...historyTo('withdrawn')))).toEqual([]);
  });

  it('given a rejected request, when a maintainer withdraws it, then RequestClosed', () => {
    expect(() => decide(command, given(...historyTo('rejected')))).toThrow(RequestClosed);
  });

  it('given no request, when a maintainer withdraws it, then RequestNotFound', () => {
    expect(() => decide(command, initialState)).toThrow(RequestNotFound);
  });
});
