import { describe, expect, it } from 'vitest';
import type { IntakeForm } from '../../../lifecycle/intake-form.js';
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
import { spec } from '../../support/decider-spec.js';
import { EVIDENCE_TO_LEAVE, INTAKE } from '../lifecycle/fixtures.js';
import {
  approvedAndAdvanced,
  historyTo,
  MAINTAINER,
  meta,
  moved,
  OWNER,
  pid,
  REQUEST_ID,
  requestDecider,
  requestProposed,
  stageAdvanceProposed,
} from './fixtures.js';

const request = spec(requestDecider);

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

const rejected = (n: number, reason: string) => ({
  type: 'StageAdvanceRejected' as const,
  data: {
    requestId: REQUEST_ID,
    proposalId: pid(n),
    rejectedBy: MAINTAINER,
    via: 'github' as const,
    reason,
  },
});
const withdrawn = (reason: string) => ({
  type: 'RequestWithdrawn' as const,
  data: { requestId: REQUEST_ID, withdrawnBy: OWNER, reason },
});
/** A draft with proposal p1 (proposed → accepted) pending. */
const pendingP1 = () => [requestProposed(), stageAdvanceProposed(1, 'proposed', 'accepted')];

describe('ProposeIntake', () => {
  it('given no request, when an intake is proposed, then RequestProposed holds the form with criterion ids and the proposer', () => {
    request
      .given([])
      .when({ type: 'ProposeIntake', requestId: REQUEST_ID, intake, meta: meta() })
      .then([
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
    request
      .given([requestProposed()])
      .when({ type: 'ProposeIntake', requestId: REQUEST_ID, intake, meta: meta() })
      .thenThrows(RecordConflict);
  });

  it('given RequestProposed, when folded, then the request is a draft in proposed at revision 0', () => {
    expect(request.given([requestProposed()]).state).toMatchObject({
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
    request
      .given([requestProposed()])
      .when({ type: 'RecordIntakeIssue', input: issue, meta: meta('reactor') })
      .then([{ type: 'IntakeIssueOpened', data: issue }]);
  });

  it('given the issue is recorded, when the same issue is recorded again (any case), then no events', () => {
    request
      .given([requestProposed(), { type: 'IntakeIssueOpened', data: issue }])
      .when({
        type: 'RecordIntakeIssue',
        input: { ...issue, repository: 'Cogitave/Requests' },
        meta: meta(),
      })
      .then([]);
  });

  it('given an issue is recorded, when another issue is recorded, then RecordConflict names the recorded one', () => {
    request
      .given([requestProposed(), { type: 'IntakeIssueOpened', data: issue }])
      .when({ type: 'RecordIntakeIssue', input: { ...issue, issueNumber: 13 }, meta: meta() })
      .thenThrows(RecordConflict, /already has intake issue cogitave\/requests#12/);
  });

  it('given a withdrawn request, when its issue is recorded late, then it is still recorded (a fact from GitHub)', () => {
    request
      .given(historyTo('withdrawn'))
      .when({ type: 'RecordIntakeIssue', input: issue, meta: meta() })
      .then([{ type: 'IntakeIssueOpened', data: issue }]);
  });

  it('given no request, when an issue is recorded, then RequestNotFound', () => {
    request
      .given([])
      .when({ type: 'RecordIntakeIssue', input: issue, meta: meta() })
      .thenThrows(RequestNotFound);
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
    const { state } = request
      .given([requestProposed()])
      .when({ type: 'RejectIntake', input: reject, meta: meta(MAINTAINER) })
      .then([
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
    expect(state).toMatchObject({ status: 'closed', stage: 'rejected' });
  });

  it('given a rejected intake, when rejected again, then no events', () => {
    request
      .given(historyTo('rejected'))
      .when({ type: 'RejectIntake', input: reject, meta: meta() })
      .then([]);
  });

  it('given an accepted request, when its intake is rejected, then TransitionNotAllowed lists what a proposal may target', () => {
    request
      .given(historyTo('accepted'))
      .when({ type: 'RejectIntake', input: reject, meta: meta() })
      .thenThrows(
        TransitionNotAllowed,
        /Stages a proposal may target from "accepted": specified, deferred, rejected, superseded/,
      );
  });

  it('given a withdrawn request, when its intake is rejected, then RequestClosed', () => {
    request
      .given(historyTo('withdrawn'))
      .when({ type: 'RejectIntake', input: reject, meta: meta() })
      .thenThrows(RequestClosed);
  });
});

describe('ProposeStageAdvance', () => {
  it('given a draft, when accepted is proposed, then StageAdvanceProposed p1 from proposed by the actor', () => {
    const { state } = request
      .given([requestProposed()])
      .when({ type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta('agent:dave') })
      .then([
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
    expect(state).toMatchObject({ pendingProposalId: pid(1), stage: 'proposed' });
  });

  it('given p1 was rejected, when proposing again, then the new proposal is p2', () => {
    request
      .given([...pendingP1(), rejected(1, 'Not yet.')])
      .when({ type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta() })
      .then([
        expect.objectContaining({
          type: 'StageAdvanceProposed',
          data: expect.objectContaining({ proposalId: pid(2) }) as object,
        }),
      ]);
  });

  it('given a pending proposal, when a second is proposed, then ProposalAlreadyPending names the pending one', () => {
    request
      .given(pendingP1())
      .when({ type: 'ProposeStageAdvance', input: advance('superseded'), meta: meta() })
      .thenThrows(
        ProposalAlreadyPending,
        /Proposal req-2026-0001-p1 \(to "accepted"\) is still pending/,
      );
  });

  it('given accepted, when in_review is proposed, then TransitionNotAllowed with the allowed stages in message and details', () => {
    request
      .given(historyTo('accepted'))
      .when({ type: 'ProposeStageAdvance', input: advance('in_review'), meta: meta() })
      .thenThrows(TransitionNotAllowed, (error) => {
        expect(error.code).toBe('FAILED_PRECONDITION');
        expect(error.details.allowedStages).toEqual([
          'specified',
          'deferred',
          'rejected',
          'superseded',
          'withdrawn',
        ]);
        expect(error.message).toContain('"in_review" cannot be reached from "accepted"');
      });
  });

  it('given specified without a rollback plan, when in_progress is proposed, then DefinitionOfDoneUnmet names the item id and what to attach', () => {
    const partial = { ...EVIDENCE_TO_LEAVE.specified, rollbackPlan: undefined };
    request
      .given(historyTo('specified'))
      .when({ type: 'ProposeStageAdvance', input: advance('in_progress', partial), meta: meta() })
      .thenThrows(DefinitionOfDoneUnmet, (error) => {
        expect(error.details.unmetDod).toEqual([
          {
            id: 'specified.rollback-plan',
            description: expect.stringContaining('Attach evidence.rollbackPlan') as string,
            detail: 'evidence.rollbackPlan is missing',
          },
        ]);
        expect(error.message).toContain(
          '[specified.rollback-plan] evidence.rollbackPlan is missing',
        );
      });
  });

  it('given a request, when its owner proposes withdrawn, then it is only a pending proposal', () => {
    const { state } = request
      .given(historyTo('accepted'))
      .when({ type: 'ProposeStageAdvance', input: advance('withdrawn'), meta: meta() })
      .then([
        expect.objectContaining({
          type: 'StageAdvanceProposed',
          data: expect.objectContaining({ fromStage: 'accepted', toStage: 'withdrawn' }) as object,
        }),
      ]);
    expect(state!.stage).toBe('accepted');
  });

  it('given a request, when someone who is not its owner proposes withdrawn, then the refusal names its owners', () => {
    request
      .given(historyTo('accepted'))
      .when({
        type: 'ProposeStageAdvance',
        input: advance('withdrawn'),
        meta: meta('agent:mallory'),
      })
      .thenThrows(/may withdraw it or ask to, and agent:mallory is neither/);
  });

  it('given a request deferred from specified, when accepted is proposed, then the refusal names the resume stage', () => {
    request
      .given(historyTo('deferred', 'specified'))
      .when({ type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta() })
      .thenThrows(/resumes to the stage it left \("specified"\)/);
  });

  it('given a done request, when anything is proposed, then RequestClosed', () => {
    request
      .given(historyTo('done'))
      .when({ type: 'ProposeStageAdvance', input: advance('in_progress'), meta: meta() })
      .thenThrows(RequestClosed);
  });

  it('given no request, when a stage is proposed, then RequestNotFound', () => {
    request
      .given([])
      .when({ type: 'ProposeStageAdvance', input: advance('accepted'), meta: meta() })
      .thenThrows(RequestNotFound);
  });
});

describe('RecordProposalPullRequest', () => {
  const prOpened = { type: 'ProposalPullRequestOpened' as const, data: pull(1) };

  it('given a pending proposal, when its PR is recorded, then ProposalPullRequestOpened', () => {
    request
      .given(pendingP1())
      .when({ type: 'RecordProposalPullRequest', input: pull(1), meta: meta() })
      .then([{ type: 'ProposalPullRequestOpened', data: pull(1) }]);
  });

  it('given a pending proposal, when its PR is recorded with the commit the reactor made, then the event keeps that commit and the fold holds it', () => {
    const headSha = 'ab'.repeat(20);
    const { state } = request
      .given(pendingP1())
      .when({ type: 'RecordProposalPullRequest', input: { ...pull(1), headSha }, meta: meta() })
      .then([{ type: 'ProposalPullRequestOpened', data: { ...pull(1), headSha } }]);
    expect(state?.proposals.find((p) => p.proposalId === pid(1))?.pullRequest).toMatchObject({
      headSha,
    });
  });

  it('given its PR is recorded, when recorded again, then no events', () => {
    request
      .given([...pendingP1(), prOpened])
      .when({ type: 'RecordProposalPullRequest', input: pull(1), meta: meta() })
      .then([]);
  });

  it('given its PR is recorded, when another PR is recorded, then RecordConflict', () => {
    request
      .given([...pendingP1(), prOpened])
      .when({ type: 'RecordProposalPullRequest', input: pull(1, 99), meta: meta() })
      .thenThrows(RecordConflict);
  });

  it('given proposal p1 only, when a PR of p7 is recorded, then ProposalNotFound lists p1', () => {
    request
      .given(pendingP1())
      .when({ type: 'RecordProposalPullRequest', input: pull(7), meta: meta() })
      .thenThrows(
        ProposalNotFound,
        /has no proposal req-2026-0001-p7; its proposals are req-2026-0001-p1/,
      );
  });
});

describe('ApproveProposal', () => {
  it('given a pending proposal, when a maintainer approves it, then StageAdvanceApproved and StageAdvanced', () => {
    const { state } = request
      .given(pendingP1())
      .when({ type: 'ApproveProposal', input: decision(1), meta: meta('webhook') })
      .then(approvedAndAdvanced(1, 'proposed', 'accepted'));
    expect(state).toMatchObject({
      status: 'active',
      stage: 'accepted',
      pendingProposalId: null,
      version: 3,
    });
  });

  it('given an approval, when folded, then the evidence of the proposal accumulates on the request', () => {
    expect(request.given(historyTo('in_progress')).state?.evidence).toEqual({
      ...EVIDENCE_TO_LEAVE.accepted,
      ...EVIDENCE_TO_LEAVE.specified,
    });
  });

  it('given an approved proposal, when approved again (redelivered webhook), then no events', () => {
    request
      .given(historyTo('accepted'))
      .when({ type: 'ApproveProposal', input: decision(1), meta: meta() })
      .then([]);
  });

  it('given a rejected proposal, when approved, then RecordConflict says to propose again', () => {
    request
      .given([...pendingP1(), rejected(1, 'No.')])
      .when({ type: 'ApproveProposal', input: decision(1), meta: meta() })
      .thenThrows(/was already rejected by maintainer:bob/);
  });

  it('given a pending proposal, when its proposer approves it, then ApprovalNotCounted (PERMISSION_DENIED)', () => {
    request
      .given(pendingP1())
      .when({ type: 'ApproveProposal', input: decision(1, OWNER), meta: meta() })
      .thenThrows(ApprovalNotCounted, /another maintainer must approve/);
  });

  it("given a principal table linking the proposer's token to a login, when that login approves, then ApprovalNotCounted names the principal", () => {
    const principals = createPrincipalDirectory(
      principalTableSchema.parse({ alice: { tokens: ['alice-agent'], github: ['alice-gh'] } }),
    );
    const byAgent = request.given([
      requestProposed(),
      stageAdvanceProposed(1, 'proposed', 'accepted', undefined, 'token:alice-agent'),
    ]);
    byAgent
      .when({ type: 'ApproveProposal', input: decision(1, 'alice-gh'), meta: meta(), principals })
      .thenThrows(ApprovalNotCounted, /principal alice/);
    // The console records a token's decision as the token itself: resolved as that token.
    byAgent
      .when({
        type: 'ApproveProposal',
        input: { ...decision(1, 'token:alice-agent'), via: 'local' },
        meta: meta(),
        principals,
      })
      .thenThrows(ApprovalNotCounted);
    // Without the table the two identities are different people.
    byAgent.when({ type: 'ApproveProposal', input: decision(1, 'alice-gh'), meta: meta() }).then([
      {
        type: 'StageAdvanceApproved',
        data: {
          requestId: REQUEST_ID,
          proposalId: pid(1),
          approvedBy: 'alice-gh',
          via: 'github',
          mergeCommitSha: null,
        },
      },
      {
        type: 'StageAdvanced',
        data: {
          requestId: REQUEST_ID,
          proposalId: pid(1),
          fromStage: 'proposed',
          toStage: 'accepted',
        },
      },
    ]);
  });

  it('given a withdrawn request with a pending proposal, when approved, then RequestClosed', () => {
    request
      .given([...pendingP1(), withdrawn('Changed my mind.')])
      .when({ type: 'ApproveProposal', input: decision(1), meta: meta() })
      .thenThrows(RequestClosed);
  });

  it('given no such proposal, when approved, then ProposalNotFound', () => {
    request
      .given(pendingP1())
      .when({ type: 'ApproveProposal', input: decision(2), meta: meta() })
      .thenThrows(ProposalNotFound);
  });

  it('given a request deferred from in_progress, when its resume is approved, then it is back in in_progress with no resume stage', () => {
    const deferred = request.given([
      ...historyTo('deferred', 'in_progress'),
      stageAdvanceProposed(5, 'deferred', 'in_progress', {}),
    ]);
    expect(deferred.state?.resumeStage).toBe('in_progress');
    const { state } = deferred
      .when({ type: 'ApproveProposal', input: decision(5), meta: meta() })
      .then(approvedAndAdvanced(5, 'deferred', 'in_progress'));
    expect(state).toMatchObject({ stage: 'in_progress', resumeStage: null, status: 'active' });
  });
});

describe('RejectProposal', () => {
  it('given a pending proposal, when rejected without a reason, then StageAdvanceRejected with a default reason and nothing pending', () => {
    const { state } = request
      .given(pendingP1())
      .when({ type: 'RejectProposal', input: decision(1), meta: meta() })
      .then([rejected(1, 'Closed without approval.')]);
    expect(state).toMatchObject({ pendingProposalId: null, stage: 'proposed' });
  });

  it('given a rejected proposal, when rejected again, then no events', () => {
    request
      .given([...pendingP1(), rejected(1, 'No.')])
      .when({ type: 'RejectProposal', input: decision(1), meta: meta() })
      .then([]);
  });

  it('given an approved proposal, when rejected, then RecordConflict', () => {
    request
      .given(historyTo('accepted'))
      .when({ type: 'RejectProposal', input: decision(1), meta: meta() })
      .thenThrows(RecordConflict);
  });

  it('given a withdrawn request with a pending proposal, when its PR is closed, then the rejection is still recorded', () => {
    request
      .given([...pendingP1(), withdrawn('Changed my mind.')])
      .when({ type: 'RejectProposal', input: decision(1), meta: meta() })
      .then([rejected(1, 'Closed without approval.')]);
  });
});

describe('Withdraw', () => {
  const input = { requestId: REQUEST_ID, reason: 'No longer needed.' };

  it('given an accepted request, when its intake proposer withdraws it, then RequestWithdrawn and it is closed', () => {
    const { state } = request
      .given(historyTo('accepted'))
      .when({ type: 'Withdraw', input, meta: meta(OWNER) })
      .then([withdrawn('No longer needed.')]);
    expect(state).toMatchObject({ status: 'closed', stage: 'withdrawn' });
  });

  it('given a request, when its requester withdraws it, then it is allowed', () => {
    request
      .given([requestProposed()])
      .when({ type: 'Withdraw', input, meta: meta(INTAKE.requester) })
      .then([
        {
          type: 'RequestWithdrawn',
          data: { requestId: REQUEST_ID, withdrawnBy: INTAKE.requester, reason: input.reason },
        },
      ]);
  });

  it('given a request, when someone else withdraws it, then NotRequestOwner (PERMISSION_DENIED)', () => {
    request
      .given([requestProposed()])
      .when({ type: 'Withdraw', input, meta: meta('agent:mallory') })
      .thenThrows(NotRequestOwner, /a maintainer can reject or withdraw it/);
  });

  it('given a withdrawn request, when withdrawn again, then no events', () => {
    request.given(historyTo('withdrawn')).when({ type: 'Withdraw', input, meta: meta() }).then([]);
  });

  it('given a done request, when withdrawn, then RequestClosed', () => {
    request
      .given(historyTo('done'))
      .when({ type: 'Withdraw', input, meta: meta() })
      .thenThrows(RequestClosed);
  });

  it('given a pending proposal, when withdrawn, then the request closes and nothing is pending', () => {
    const { state } = request
      .given(pendingP1())
      .when({ type: 'Withdraw', input, meta: meta() })
      .then([withdrawn('No longer needed.')]);
    expect(state).toMatchObject({ stage: 'withdrawn', pendingProposalId: null });
  });
});

describe('evolve', () => {
  it('given a history to done, when folded, then status, stage and revision follow it', () => {
    const history = historyTo('done');
    const { state } = request.given(history);
    expect(state).toMatchObject({ status: 'closed', stage: 'done', version: history.length - 1 });
    expect(state?.proposals.map((p) => p.outcome)).toEqual(Array(6).fill('approved'));
  });

  it('given a deferral from accepted, when folded, then the resume stage is kept', () => {
    expect(request.given(historyTo('deferred')).state).toMatchObject({
      status: 'active',
      stage: 'deferred',
      resumeStage: 'accepted',
    });
  });

  it('given a back-edge in_review → in_progress, when folded, then the request is in_progress again', () => {
    expect(
      request.given([...historyTo('in_review'), ...moved(5, 'in_review', 'in_progress')]).state
        ?.stage,
    ).toBe('in_progress');
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
    const { state } = request
      .given([...historyTo('accepted'), stageAdvanceProposed(2, 'accepted', 'specified')])
      .when(command)
      .then([
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
    expect(state!.stage).toBe('withdrawn');
    expect(state!.pendingProposalId).toBeNull();
  });

  it('given a withdrawn request, when a maintainer withdraws it again, then no events', () => {
    request.given(historyTo('withdrawn')).when(command).then([]);
  });

  it('given a rejected request, when a maintainer withdraws it, then RequestClosed', () => {
    request.given(historyTo('rejected')).when(command).thenThrows(RequestClosed);
  });

  it('given no request, when a maintainer withdraws it, then RequestNotFound', () => {
    request.given([]).when(command).thenThrows(RequestNotFound);
  });
});
