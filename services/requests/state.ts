import type { RequestFacts } from '../../lifecycle/dod.js';
import type { ProposalRef } from '../../lifecycle/machine.js';
import type { LifecycleView } from '../../lifecycle/validate.js';
import { pendingProposalOf, type ProposalRecord, type RequestRecord } from './fold.js';

/**
 * What the decider decides on: the request's record (`fold.ts`), undefined before intake, and
 * the lifecycle machine's view of it.
 */
export type RequestState = RequestRecord | undefined;

export const initialState: RequestState = undefined;

export const proposalRef = (proposal: ProposalRecord): ProposalRef => ({
  proposalId: proposal.proposalId,
  toStage: proposal.toStage,
  evidence: proposal.evidence,
  proposedBy: proposal.proposedBy,
});

/** The intake form and the merged evidence: what the Definition of Done is checked against. */
export const factsOf = (record: RequestRecord): RequestFacts => ({
  intake: {
    title: record.title,
    problem: record.problem,
    product: record.product,
    requester: record.requester,
    acceptanceCriteria: record.acceptanceCriteria,
    links: record.links,
    priority: record.priority,
  },
  evidence: record.evidence,
});

/** The request in the lifecycle machine's terms; undefined before intake. */
export const lifecycleView = (state: RequestState): LifecycleView | undefined => {
  if (!state) return undefined;
  const pending = pendingProposalOf(state);
  return {
    stage: state.stage,
    facts: factsOf(state),
    owners: [state.proposedBy, state.requester],
    resumeStage: state.resumeStage,
    pendingProposal: pending ? proposalRef(pending) : null,
  };
};
