import type { RequestFacts } from '../../lifecycle/dod.js';
import { mergeEvidence, type Evidence } from '../../lifecycle/evidence.js';
import type { ProposalRef } from '../../lifecycle/machine.js';
import { TERMINAL_STAGES, type Stage } from '../../lifecycle/stages.js';
import type { LifecycleView } from '../../lifecycle/validate.js';
import type { RequestEvent } from './events.js';

/**
 * The Request aggregate's state: what `decide` needs, folded from the stream by `evolve`.
 * `evolve` trusts the events (they were decided); it never throws.
 */

/** `draft`: stage proposed (not yet accepted); `active`: accepted and not closed (deferred too). */
export type RequestStatus = 'none' | 'draft' | 'active' | 'closed';

export type ProposalOutcome = 'pending' | 'approved' | 'rejected';

export interface PullRequestRef {
  readonly repository: string;
  readonly branch: string;
  readonly pullNumber: number;
  readonly pullUrl: string;
}

export interface IntakeIssueRef {
  readonly repository: string;
  readonly issueNumber: number;
  readonly issueUrl: string;
}

export interface ProposalState {
  readonly proposalId: string;
  readonly fromStage: Stage;
  readonly toStage: Stage;
  readonly evidence: Evidence;
  readonly rationale: string;
  readonly proposedBy: string;
  readonly outcome: ProposalOutcome;
  /** Who approved or rejected it; null while pending. */
  readonly decidedBy: string | null;
  readonly pullRequest: PullRequestRef | null;
}

export interface RequestState {
  readonly status: RequestStatus;
  readonly requestId: string | null;
  readonly stage: Stage | null;
  /** While deferred: the stage to resume to. */
  readonly resumeStage: Stage | null;
  /** The intake form and the evidence of every approved proposal, merged in order. */
  readonly facts: RequestFacts | null;
  /** The actor who submitted the intake. */
  readonly proposedBy: string | null;
  readonly intakeIssue: IntakeIssueRef | null;
  /** Every proposal in order: proposal n has id `<requestId>-p<n>`. */
  readonly proposals: readonly ProposalState[];
  readonly pendingProposalId: string | null;
  /** Revision of the last event folded; null while the stream does not exist. */
  readonly revision: bigint | null;
}

export const initialState: RequestState = {
  status: 'none',
  requestId: null,
  stage: null,
  resumeStage: null,
  facts: null,
  proposedBy: null,
  intakeIssue: null,
  proposals: [],
  pendingProposalId: null,
  revision: null,
};

export const statusOf = (stage: Stage): RequestStatus =>
  TERMINAL_STAGES.includes(stage) ? 'closed' : stage === 'proposed' ? 'draft' : 'active';

export const findProposal = (state: RequestState, proposalId: string): ProposalState | undefined =>
  state.proposals.find((proposal) => proposal.proposalId === proposalId);

export const pendingProposal = (state: RequestState): ProposalState | undefined =>
  state.pendingProposalId === null ? undefined : findProposal(state, state.pendingProposalId);

export const proposalRef = (proposal: ProposalState): ProposalRef => ({
  proposalId: proposal.proposalId,
  toStage: proposal.toStage,
  evidence: proposal.evidence,
  proposedBy: proposal.proposedBy,
});

/** The request in the lifecycle machine's terms; undefined before intake. */
export const lifecycleView = (state: RequestState): LifecycleView | undefined => {
  if (state.stage === null || state.facts === null) return undefined;
  const pending = pendingProposal(state);
  return {
    stage: state.stage,
    facts: state.facts,
    owners: [state.proposedBy, state.facts.intake.requester].filter(
      (owner): owner is string => owner !== null,
    ),
    resumeStage: state.resumeStage,
    pendingProposal: pending ? proposalRef(pending) : null,
  };
};

const updateProposal = (
  state: RequestState,
  proposalId: string,
  change: (proposal: ProposalState) => ProposalState,
): readonly ProposalState[] =>
  state.proposals.map((proposal) =>
    proposal.proposalId === proposalId ? change(proposal) : proposal,
  );

const moveTo = (state: RequestState, from: Stage, to: Stage): RequestState => ({
  ...state,
  stage: to,
  status: statusOf(to),
  // Deferring remembers where to resume; any move out of deferred forgets it.
  resumeStage: to === 'deferred' ? from : null,
});

const applyEvent = (state: RequestState, event: RequestEvent): RequestState => {
  switch (event.type) {
    case 'RequestProposed': {
      const { requestId, proposedBy, ...intake } = event.data;
      return {
        ...state,
        status: 'draft',
        requestId,
        stage: 'proposed',
        facts: { intake, evidence: {} },
        proposedBy,
      };
    }
    case 'IntakeIssueOpened': {
      const { repository, issueNumber, issueUrl } = event.data;
      return { ...state, intakeIssue: { repository, issueNumber, issueUrl } };
    }
    case 'IntakeRejected':
      return { ...moveTo(state, state.stage ?? 'proposed', 'rejected'), pendingProposalId: null };
    case 'StageAdvanceProposed': {
      const { proposalId, fromStage, toStage, evidence, rationale, proposedBy } = event.data;
      const proposal: ProposalState = {
        proposalId,
        fromStage,
        toStage,
        evidence,
        rationale,
        proposedBy,
        outcome: 'pending',
        decidedBy: null,
        pullRequest: null,
      };
      return { ...state, proposals: [...state.proposals, proposal], pendingProposalId: proposalId };
    }
    case 'ProposalPullRequestOpened': {
      const { proposalId, repository, branch, pullNumber, pullUrl } = event.data;
      return {
        ...state,
        proposals: updateProposal(state, proposalId, (proposal) => ({
          ...proposal,
          pullRequest: { repository, branch, pullNumber, pullUrl },
        })),
      };
    }
    case 'StageAdvanceApproved': {
      const { proposalId, approvedBy } = event.data;
      const approved = findProposal(state, proposalId);
      return {
        ...state,
        facts:
          state.facts && approved
            ? { ...state.facts, evidence: mergeEvidence(state.facts.evidence, approved.evidence) }
            : state.facts,
        proposals: updateProposal(state, proposalId, (proposal) => ({
          ...proposal,
          outcome: 'approved',
          decidedBy: approvedBy,
        })),
        pendingProposalId: state.pendingProposalId === proposalId ? null : state.pendingProposalId,
      };
    }
    case 'StageAdvanced':
      return moveTo(state, event.data.fromStage, event.data.toStage);
    case 'StageAdvanceRejected': {
      const { proposalId, rejectedBy } = event.data;
      return {
        ...state,
        proposals: updateProposal(state, proposalId, (proposal) => ({
          ...proposal,
          outcome: 'rejected',
          decidedBy: rejectedBy,
        })),
        pendingProposalId: state.pendingProposalId === proposalId ? null : state.pendingProposalId,
      };
    }
    case 'RequestWithdrawn':
      // A pending proposal is abandoned with the request; it can still be recorded as rejected.
      return { ...moveTo(state, state.stage ?? 'proposed', 'withdrawn'), pendingProposalId: null };
  }
};

/** Folds one event; each event is one revision further along the stream. */
export const evolve = (state: RequestState, event: RequestEvent): RequestState => ({
  ...applyEvent(state, event),
  revision: state.revision === null ? 0n : state.revision + 1n,
});

export const foldEvents = (
  events: readonly RequestEvent[],
  from: RequestState = initialState,
): RequestState => events.reduce(evolve, from);
