import type { Evidence } from '../../lifecycle/evidence.js';
import type { Stage } from '../../lifecycle/stages.js';

/**
 * The Request aggregate's events, stored on stream `request-<requestId>`. Facts, never
 * renamed: add a new type (or an optional field) instead. Who and when are in the event
 * metadata (actor, at); the data repeats the actor only where it is part of the fact
 * (proposedBy, approvedBy, …) because approval rules compare them.
 */
export const requestStreamId = (requestId: string): string => `request-${requestId}`;

export type Priority = 'low' | 'medium' | 'high' | 'critical';

export interface AcceptanceCriterion {
  /** `ac-1`, `ac-2`, … in the order given at intake. */
  readonly id: string;
  readonly text: string;
}

export interface RequestLink {
  readonly url: string;
  readonly title?: string | undefined;
}

/** Where a proposal or approval came from: GitHub (webhook) or the local approval CLI. */
export type ApprovalChannel = 'github' | 'local';

export interface RequestProposed {
  readonly type: 'RequestProposed';
  readonly data: {
    readonly requestId: string;
    readonly title: string;
    readonly problem: string;
    readonly product: string;
    readonly requester: string;
    readonly acceptanceCriteria: readonly AcceptanceCriterion[];
    readonly links: readonly RequestLink[];
    readonly priority: Priority;
    readonly proposedBy: string;
  };
}

export interface IntakeIssueOpened {
  readonly type: 'IntakeIssueOpened';
  readonly data: {
    readonly requestId: string;
    /** owner/name */
    readonly repository: string;
    readonly issueNumber: number;
    readonly issueUrl: string;
  };
}

export interface IntakeRejected {
  readonly type: 'IntakeRejected';
  readonly data: {
    readonly requestId: string;
    readonly rejectedBy: string;
    readonly via: ApprovalChannel;
    readonly reason: string;
  };
}

export interface StageAdvanceProposed {
  readonly type: 'StageAdvanceProposed';
  readonly data: {
    readonly requestId: string;
    /** Unique per request: `<requestId>-p<n>`; names the branch and marks the PR. */
    readonly proposalId: string;
    readonly fromStage: Stage;
    readonly toStage: Stage;
    readonly evidence: Evidence;
    readonly rationale: string;
    readonly proposedBy: string;
  };
}

export interface ProposalPullRequestOpened {
  readonly type: 'ProposalPullRequestOpened';
  readonly data: {
    readonly requestId: string;
    readonly proposalId: string;
    readonly repository: string;
    readonly branch: string;
    readonly pullNumber: number;
    readonly pullUrl: string;
    /**
     * The commit the reactor made on the branch (the request file at the proposed stage):
     * a later head is someone else's push. Absent in events recorded before it was kept.
     */
    readonly headSha?: string;
  };
}

export interface StageAdvanceApproved {
  readonly type: 'StageAdvanceApproved';
  readonly data: {
    readonly requestId: string;
    readonly proposalId: string;
    readonly approvedBy: string;
    readonly via: ApprovalChannel;
    /** The merge commit on GitHub; null for local approval. */
    readonly mergeCommitSha: string | null;
  };
}

export interface StageAdvanced {
  readonly type: 'StageAdvanced';
  readonly data: {
    readonly requestId: string;
    readonly proposalId: string;
    readonly fromStage: Stage;
    readonly toStage: Stage;
  };
}

/**
 * A merge that happened on GitHub but may not count as approval (the merger's principal made
 * the proposal, or is not a maintainer). It ends the proposal as a rejection would, and says so.
 */
export interface MergeNotCounted {
  readonly pullNumber: number;
  /** The GitHub login that merged. */
  readonly mergedBy: string;
  readonly mergeCommitSha: string | null;
  /** The rule that refused it (services/principals/four-eyes.ts). */
  readonly rule: 'own_proposal' | 'not_maintainer';
  /** The merger's principal. */
  readonly principal: string;
}

export interface StageAdvanceRejected {
  readonly type: 'StageAdvanceRejected';
  readonly data: {
    readonly requestId: string;
    readonly proposalId: string;
    readonly rejectedBy: string;
    readonly via: ApprovalChannel;
    readonly reason: string;
    /** Set when the proposal ended because its pull request was merged by someone who may not approve it. */
    readonly mergeNotCounted?: MergeNotCounted;
  };
}

export interface RequestWithdrawn {
  readonly type: 'RequestWithdrawn';
  readonly data: {
    readonly requestId: string;
    readonly withdrawnBy: string;
    readonly reason: string;
    /** Set when a maintainer withdrew it; absent when its owner did. */
    readonly via?: ApprovalChannel;
  };
}

export type RequestEvent =
  | RequestProposed
  | IntakeIssueOpened
  | IntakeRejected
  | StageAdvanceProposed
  | ProposalPullRequestOpened
  | StageAdvanceApproved
  | StageAdvanced
  | StageAdvanceRejected
  | RequestWithdrawn;

export type RequestEventType = RequestEvent['type'];

export const REQUEST_EVENT_TYPES: readonly RequestEventType[] = [
  'RequestProposed',
  'IntakeIssueOpened',
  'IntakeRejected',
  'StageAdvanceProposed',
  'ProposalPullRequestOpened',
  'StageAdvanceApproved',
  'StageAdvanced',
  'StageAdvanceRejected',
  'RequestWithdrawn',
];
