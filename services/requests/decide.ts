import type { IntakeForm } from '../../lifecycle/intake-form.js';
import {
  canApprove,
  canMaintainerWithdraw,
  canPropose,
  canRejectIntake,
  canWithdraw,
  type LifecycleView,
  type Verdict,
} from '../../lifecycle/validate.js';
import type { CommandMetadata } from '../commands/metadata.js';
import { judgeApproval } from '../principals/four-eyes.js';
import { createPrincipalDirectory, type PrincipalDirectory } from '../principals/principals.js';
import type {
  IntakeDecisionInput,
  IntakeIssueInput,
  MaintainerWithdrawInput,
  ProposalDecisionInput,
  ProposalPullRequestInput,
  StageAdvanceInput,
  WithdrawInput,
} from './commands.js';
import {
  ApprovalNotCounted,
  ProposalNotFound,
  RecordConflict,
  RequestClosed,
  RequestNotFound,
  refusalError,
} from './errors.js';
import type { RequestEvent } from './events.js';
import { findProposal, type ProposalRecord, type RequestRecord } from './fold.js';
import { lifecycleView, proposalRef, type RequestState } from './state.js';

/**
 * The Request decider: `decide(command, state)` returns the events the command produces, or
 * throws a typed error (and so appends nothing). Pure: time, ids and the actor come in the
 * command's metadata. Recording a fact that is already recorded returns no events.
 */

export type RequestCommand =
  | {
      readonly type: 'ProposeIntake';
      readonly requestId: string;
      readonly intake: IntakeForm;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'RecordIntakeIssue';
      readonly input: IntakeIssueInput;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'RejectIntake';
      readonly input: IntakeDecisionInput;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'ProposeStageAdvance';
      readonly input: StageAdvanceInput;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'RecordProposalPullRequest';
      readonly input: ProposalPullRequestInput;
      readonly meta: CommandMetadata;
    }
  | {
      readonly type: 'ApproveProposal';
      readonly input: ProposalDecisionInput;
      readonly meta: CommandMetadata;
      /** Who is who: four eyes compares principals (services/governance). Default: no table. */
      readonly principals?: PrincipalDirectory | undefined;
    }
  | {
      readonly type: 'RejectProposal';
      readonly input: ProposalDecisionInput;
      readonly meta: CommandMetadata;
    }
  | { readonly type: 'Withdraw'; readonly input: WithdrawInput; readonly meta: CommandMetadata }
  | {
      readonly type: 'MaintainerWithdraw';
      readonly input: MaintainerWithdrawInput;
      readonly meta: CommandMetadata;
    };

export type RequestCommandType = RequestCommand['type'];

/** Every identity its own principal by name; an immutable value, not shared state. */
const NO_PRINCIPAL_TABLE = createPrincipalDirectory();

export const proposalIdFor = (requestId: string, n: number): string => `${requestId}-p${n}`;

/** The request as it is now; throws unless it exists. */
const existing = (
  state: RequestState,
  requestId: string,
): LifecycleView & { requestId: string; record: RequestRecord } => {
  const view = lifecycleView(state);
  if (!view || state?.requestId !== requestId) throw new RequestNotFound(requestId);
  return { ...view, requestId, record: state };
};

const open = (state: RequestState, requestId: string, attempted: string) => {
  const view = existing(state, requestId);
  if (view.record.status === 'closed') throw new RequestClosed(requestId, view.stage, attempted);
  return view;
};

const ensure = (verdict: Verdict, what: string): void => {
  if (!verdict.ok) throw refusalError(what, verdict.reasons);
};

const proposalOf = (state: RequestState, requestId: string, proposalId: string): ProposalRecord => {
  const { record } = existing(state, requestId);
  const proposal = findProposal(record, proposalId);
  if (!proposal) {
    throw new ProposalNotFound(
      requestId,
      proposalId,
      record.proposals.map((known) => known.proposalId),
    );
  }
  return proposal;
};

const sameRepository = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const proposeIntake = (
  command: Extract<RequestCommand, { type: 'ProposeIntake' }>,
  state: RequestState,
): RequestEvent[] => {
  if (state !== undefined) {
    throw new RecordConflict(
      `Request ${command.requestId} already exists; an intake creates a new request.`,
      {
        requestId: command.requestId,
      },
    );
  }
  const { intake } = command;
  return [
    {
      type: 'RequestProposed',
      data: {
        requestId: command.requestId,
        title: intake.title,
        problem: intake.problem,
        product: intake.product,
        requester: intake.requester,
        acceptanceCriteria: intake.acceptanceCriteria.map((text, index) => ({
          id: `ac-${index + 1}`,
          text,
        })),
        links: intake.links.map((link) =>
          link.title === undefined ? { url: link.url } : { url: link.url, title: link.title },
        ),
        priority: intake.priority,
        proposedBy: command.meta.actor,
      },
    },
  ];
};

const recordIntakeIssue = (
  { input }: { input: IntakeIssueInput },
  state: RequestState,
): RequestEvent[] => {
  const known = existing(state, input.requestId).record.intakeIssue;
  if (known) {
    if (sameRepository(known.repository, input.repository) && known.number === input.issueNumber)
      return [];
    throw new RecordConflict(
      `Request ${input.requestId} already has intake issue ${known.repository}#${known.number} (${known.url}); issue ${input.repository}#${input.issueNumber} cannot be recorded as well. Close it as a duplicate.`,
      { requestId: input.requestId, recorded: known },
    );
  }
  const { requestId, repository, issueNumber, issueUrl } = input;
  return [{ type: 'IntakeIssueOpened', data: { requestId, repository, issueNumber, issueUrl } }];
};

const rejectIntake = (
  { input }: { input: IntakeDecisionInput },
  state: RequestState,
): RequestEvent[] => {
  const view = existing(state, input.requestId);
  if (view.stage === 'rejected') return [];
  const live = open(state, input.requestId, 'rejecting its intake');
  ensure(canRejectIntake(live), `Rejecting the intake of ${input.requestId}`);
  return [
    {
      type: 'IntakeRejected',
      data: {
        requestId: input.requestId,
        rejectedBy: input.decidedBy,
        via: input.via,
        reason: input.reason,
      },
    },
  ];
};

const proposeStageAdvance = (
  { input, meta }: { input: StageAdvanceInput; meta: CommandMetadata },
  state: RequestState,
): RequestEvent[] => {
  const view = open(state, input.requestId, `proposing a move to "${input.toStage}"`);
  const proposal = {
    proposalId: proposalIdFor(input.requestId, view.record.proposals.length + 1),
    toStage: input.toStage,
    evidence: input.evidence,
    proposedBy: meta.actor,
  };
  ensure(
    canPropose(view, proposal),
    `Proposing ${input.requestId} ${view.stage} → ${input.toStage}`,
  );
  return [
    {
      type: 'StageAdvanceProposed',
      data: {
        requestId: input.requestId,
        proposalId: proposal.proposalId,
        fromStage: view.stage,
        toStage: input.toStage,
        evidence: input.evidence,
        rationale: input.rationale,
        proposedBy: meta.actor,
      },
    },
  ];
};

const recordPullRequest = (
  { input }: { input: ProposalPullRequestInput },
  state: RequestState,
): RequestEvent[] => {
  const proposal = proposalOf(state, input.requestId, input.proposalId);
  const known = proposal.pullRequest;
  if (known) {
    if (sameRepository(known.repository, input.repository) && known.pullNumber === input.pullNumber)
      return [];
    throw new RecordConflict(
      `Proposal ${input.proposalId} already has pull request ${known.repository}#${known.pullNumber} (${known.pullUrl}); #${input.pullNumber} cannot be recorded as well. Close it as a duplicate.`,
      { requestId: input.requestId, proposalId: input.proposalId, recorded: known },
    );
  }
  const { requestId, proposalId, repository, branch, pullNumber, pullUrl, headSha } = input;
  return [
    {
      type: 'ProposalPullRequestOpened',
      data: {
        requestId,
        proposalId,
        repository,
        branch,
        pullNumber,
        pullUrl,
        ...(headSha === undefined ? {} : { headSha }),
      },
    },
  ];
};

const decided = (proposal: ProposalRecord, requestId: string, attempted: string): RecordConflict =>
  new RecordConflict(
    `Proposal ${proposal.proposalId} was already ${proposal.outcome} by ${proposal.decision?.by ?? 'unknown'}, so it cannot be ${attempted}; propose the stage change again if it is still wanted.`,
    { requestId, proposalId: proposal.proposalId, outcome: proposal.outcome },
  );

/**
 * The identity that approves, as events name actors. A bare name gets its channel's namespace
 * (a GitHub login, a local maintainer); a name that carries one already (the console records a
 * token's decisions as `token:<name>`) keeps it, so a token is resolved as that token.
 */
export const approverIdentity = (
  input: Pick<ProposalDecisionInput, 'decidedBy' | 'via'>,
): string =>
  input.decidedBy.includes(':')
    ? input.decidedBy
    : `${input.via === 'github' ? 'github' : 'maintainer'}:${input.decidedBy}`;

const approveProposal = (
  {
    input,
    principals = NO_PRINCIPAL_TABLE,
  }: { input: ProposalDecisionInput; principals?: PrincipalDirectory | undefined },
  state: RequestState,
): RequestEvent[] => {
  const proposal = proposalOf(state, input.requestId, input.proposalId);
  if (proposal.outcome === 'approved') return [];
  if (proposal.outcome === 'rejected') throw decided(proposal, input.requestId, 'approved');
  const view = open(state, input.requestId, `approving ${input.proposalId}`);
  const judgement = judgeApproval(principals, {
    proposedBy: proposal.proposedBy,
    approvedBy: approverIdentity(input),
    proposalId: proposal.proposalId,
  });
  if (!judgement.counts)
    throw new ApprovalNotCounted(input.requestId, proposal.proposalId, judgement);
  // The lifecycle's own four-eyes guard sees principals too, so it agrees with the judgement.
  ensure(
    canApprove(
      view,
      { ...proposalRef(proposal), proposedBy: judgement.proposer.id },
      judgement.approver.id,
    ),
    `Approving ${input.proposalId} (${proposal.fromStage} → ${proposal.toStage})`,
  );
  return [
    {
      type: 'StageAdvanceApproved',
      data: {
        requestId: input.requestId,
        proposalId: input.proposalId,
        approvedBy: input.decidedBy,
        via: input.via,
        mergeCommitSha: input.mergeCommitSha ?? null,
      },
    },
    {
      type: 'StageAdvanced',
      data: {
        requestId: input.requestId,
        proposalId: input.proposalId,
        fromStage: view.stage,
        toStage: proposal.toStage,
      },
    },
  ];
};

// Allowed on a closed request: closing a pending proposal's PR is a fact worth recording.
const rejectProposal = (
  { input }: { input: ProposalDecisionInput },
  state: RequestState,
): RequestEvent[] => {
  const proposal = proposalOf(state, input.requestId, input.proposalId);
  if (proposal.outcome === 'rejected') return [];
  if (proposal.outcome === 'approved') throw decided(proposal, input.requestId, 'rejected');
  return [
    {
      type: 'StageAdvanceRejected',
      data: {
        requestId: input.requestId,
        proposalId: input.proposalId,
        rejectedBy: input.decidedBy,
        via: input.via,
        reason: input.reason ?? 'Closed without approval.',
        ...(input.mergeNotCounted ? { mergeNotCounted: input.mergeNotCounted } : {}),
      },
    },
  ];
};

const withdraw = (
  { input, meta }: { input: WithdrawInput; meta: CommandMetadata },
  state: RequestState,
): RequestEvent[] => {
  const view = existing(state, input.requestId);
  if (view.stage === 'withdrawn') return [];
  const live = open(state, input.requestId, 'withdrawing it');
  ensure(canWithdraw(live, meta.actor), `Withdrawing ${input.requestId}`);
  return [
    {
      type: 'RequestWithdrawn',
      data: { requestId: input.requestId, withdrawnBy: meta.actor, reason: input.reason },
    },
  ];
};

const maintainerWithdraw = (
  { input }: { input: MaintainerWithdrawInput },
  state: RequestState,
): RequestEvent[] => {
  const view = existing(state, input.requestId);
  if (view.stage === 'withdrawn') return [];
  const live = open(state, input.requestId, 'withdrawing it');
  ensure(canMaintainerWithdraw(live), `Withdrawing ${input.requestId}`);
  return [
    {
      type: 'RequestWithdrawn',
      data: {
        requestId: input.requestId,
        withdrawnBy: input.decidedBy,
        reason: input.reason,
        via: input.via,
      },
    },
  ];
};

export const decide = (command: RequestCommand, state: RequestState): RequestEvent[] => {
  switch (command.type) {
    case 'ProposeIntake':
      return proposeIntake(command, state);
    case 'RecordIntakeIssue':
      return recordIntakeIssue(command, state);
    case 'RejectIntake':
      return rejectIntake(command, state);
    case 'ProposeStageAdvance':
      return proposeStageAdvance(command, state);
    case 'RecordProposalPullRequest':
      return recordPullRequest(command, state);
    case 'ApproveProposal':
      return approveProposal(command, state);
    case 'RejectProposal':
      return rejectProposal(command, state);
    case 'Withdraw':
      return withdraw(command, state);
    case 'MaintainerWithdraw':
      return maintainerWithdraw(command, state);
  }
};

/** The request a command is about (intake: the id it was allocated). */
export const requestIdOf = (command: RequestCommand): string =>
  command.type === 'ProposeIntake' ? command.requestId : command.input.requestId;
