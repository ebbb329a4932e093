import type { Evidence } from '../../lifecycle/evidence.js';
import type { Stage } from '../../lifecycle/stages.js';
import type { CommandMetadata } from '../commands/metadata.js';
import type { ExpectedRevision, Position } from '../event-store/types.js';
import type {
  AcceptanceCriterion,
  ApprovalChannel,
  MergeNotCounted,
  Priority,
  RequestLink,
  RequestProposed,
} from './events.js';

export interface IntakeInput {
  readonly title: string;
  readonly problem: string;
  readonly product: string;
  readonly requester: string;
  /** Plain texts; ids `ac-1…` are assigned in order. */
  readonly acceptanceCriteria: readonly string[];
  readonly links?: readonly RequestLink[] | undefined;
  readonly priority?: Priority | undefined;
}

export interface StageAdvanceInput {
  readonly requestId: string;
  readonly toStage: Stage;
  readonly evidence: Evidence;
  readonly rationale: string;
  /** Optimistic concurrency: the request revision the proposer decided on. */
  readonly expectedRevision?: ExpectedRevision | undefined;
}

export interface ProposalDecisionInput {
  readonly requestId: string;
  readonly proposalId: string;
  /** GitHub login or local maintainer name. */
  readonly decidedBy: string;
  readonly via: ApprovalChannel;
  readonly reason?: string | undefined;
  readonly mergeCommitSha?: string | null | undefined;
  /** Rejection only: the proposal ends because its merge may not count. */
  readonly mergeNotCounted?: MergeNotCounted | undefined;
}

export interface CommandResult {
  readonly requestId: string;
  /** Revision of the request stream after the command. */
  readonly revision: bigint;
}

/**
 * An intake's outcome: the request as decided, so the answer need not wait for the read
 * model, and where it is in the log, so a later read can wait for exactly that.
 */
export interface IntakeResult extends CommandResult {
  /** Position of the RequestProposed event (the request's revision 0). */
  readonly position: Position;
  /** The request's first event as stored (decided now, or by an earlier attempt). */
  readonly proposed: RequestProposed;
  /** Its metadata `at`: when the intake was decided. */
  readonly at: string;
}

export type { AcceptanceCriterion };

export interface IntakeIssueInput {
  readonly requestId: string;
  readonly repository: string;
  readonly issueNumber: number;
  readonly issueUrl: string;
}

export interface ProposalPullRequestInput {
  readonly requestId: string;
  readonly proposalId: string;
  readonly repository: string;
  readonly branch: string;
  readonly pullNumber: number;
  readonly pullUrl: string;
  /** The commit the reactor made on the branch, so a later head is known to be a push. */
  readonly headSha?: string | undefined;
}

export interface IntakeDecisionInput {
  readonly requestId: string;
  readonly decidedBy: string;
  readonly via: ApprovalChannel;
  readonly reason: string;
}

/** A maintainer withdraws a request directly (no proposal): the local CLI or console. */
export interface MaintainerWithdrawInput {
  readonly requestId: string;
  readonly decidedBy: string;
  readonly via: ApprovalChannel;
  readonly reason: string;
}

export interface WithdrawInput {
  readonly requestId: string;
  readonly reason: string;
}

/**
 * The write side of requests, as the gateway tools, the GitHub reactor, the webhook receiver
 * and the local approval CLI call it. Each handler loads the request, decides, and appends
 * with the revision it decided on; a refused command throws a typed error and appends nothing.
 * Recording what already happened (the same issue, the same approval) again is a no-op, so
 * redelivered webhooks and restarted reactors are safe.
 */
export interface RequestCommandHandlers {
  proposeIntake(input: IntakeInput, meta: CommandMetadata): Promise<IntakeResult>;
  proposeStageAdvance(
    input: StageAdvanceInput,
    meta: CommandMetadata,
  ): Promise<CommandResult & { readonly proposalId: string }>;
  recordIntakeIssue(input: IntakeIssueInput, meta: CommandMetadata): Promise<CommandResult>;
  recordProposalPullRequest(
    input: ProposalPullRequestInput,
    meta: CommandMetadata,
  ): Promise<CommandResult>;
  /** Appends StageAdvanceApproved then StageAdvanced. */
  approveProposal(input: ProposalDecisionInput, meta: CommandMetadata): Promise<CommandResult>;
  rejectProposal(input: ProposalDecisionInput, meta: CommandMetadata): Promise<CommandResult>;
  rejectIntake(input: IntakeDecisionInput, meta: CommandMetadata): Promise<CommandResult>;
  /** The request's owner withdraws it (no approval). */
  withdraw(input: WithdrawInput, meta: CommandMetadata): Promise<CommandResult>;
  /** A maintainer withdraws it; never reachable from MCP, where withdrawing is a proposal. */
  withdrawByMaintainer(
    input: MaintainerWithdrawInput,
    meta: CommandMetadata,
  ): Promise<CommandResult>;
}
