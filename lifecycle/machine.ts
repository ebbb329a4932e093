import { and, assign, setup } from 'xstate';
import { unmetDod, type RequestFacts, type UnmetDodItem } from './dod.js';
import { mergeEvidence, type Evidence } from './evidence.js';
import type { Stage } from './stages.js';

/**
 * The request lifecycle as an XState v5 machine. It is never run as an actor: the Request
 * decider rebuilds a snapshot from the stored stage (`resolveState`) and asks it whether an
 * event is allowed (`snapshot.can`), see validate.ts. Every stage change is one edge here, so
 * TRANSITIONS.md (generated from this machine) is the complete list of what can happen.
 *
 * A stage change is proposed, then approved (a merged PR). Both are checked against the same
 * edge, with the same event `advance.<to>`: at proposal time without an approver, at approval
 * time with one. So the DoD holds both when the PR is opened and when it is merged.
 */

/** A proposal as the machine sees it: the pending one, or the one being checked. */
export interface ProposalRef {
  readonly proposalId: string;
  readonly toStage: Stage;
  readonly evidence: Evidence;
  readonly proposedBy: string;
}

export interface LifecycleContext {
  readonly facts: RequestFacts;
  /** Who may withdraw the request: its intake proposer and its requester. */
  readonly owners: readonly string[];
  /** While deferred: the stage the request left, and the only one it can resume to. */
  readonly resumeStage: Stage | null;
  readonly pendingProposal: ProposalRef | null;
}

export type AdvanceEventType = `advance.${Stage}`;

export interface AdvanceEvent {
  readonly type: AdvanceEventType;
  readonly proposal: ProposalRef;
  /** Absent when a proposal is checked; the approver when its approval is checked. */
  readonly approvedBy?: string | undefined;
}

export type LifecycleEvent =
  | AdvanceEvent
  | { readonly type: 'withdraw'; readonly actor: string }
  | { readonly type: 'maintainer_withdraw' }
  | { readonly type: 'reject_intake' };

export type LifecycleEventType = LifecycleEvent['type'];

export interface LifecycleInput {
  readonly facts: RequestFacts;
  readonly owners: readonly string[];
}

/** Why the machine refuses an event: one entry per failing guard (or a missing edge). */
export type Refusal =
  | {
      readonly code: 'transition_not_allowed';
      readonly from: Stage;
      readonly to: Stage;
      /** Stages a proposal may target from `from`, given where a deferred request resumes. */
      readonly allowed: readonly Stage[];
      readonly resumeStage: Stage | null;
    }
  | { readonly code: 'dod_unmet'; readonly stage: Stage; readonly items: readonly UnmetDodItem[] }
  | {
      readonly code: 'proposal_pending';
      readonly proposalId: string;
      readonly toStage: Stage;
    }
  | { readonly code: 'approver_is_proposer'; readonly actor: string; readonly proposalId: string }
  | { readonly code: 'not_owner'; readonly actor: string; readonly owners: readonly string[] };

interface GuardArgs {
  readonly context: LifecycleContext;
  readonly event: LifecycleEvent;
}

const sameActor = (a: string, b: string): boolean =>
  a.trim().toLowerCase() === b.trim().toLowerCase();

const proposalOf = (event: LifecycleEvent): ProposalRef | undefined =>
  'proposal' in event ? event.proposal : undefined;

/**
 * Each guard explains itself: `null` when it holds, else the refusal. The machine's guards
 * are these with `=== null`, so the verdict (`snapshot.can`) and the reasons given to the
 * caller come from one implementation.
 */
export const guardExplanations = {
  /** The DoD of the stage being left holds for the facts plus the proposal's evidence. */
  dodMet: ({ context, event }: GuardArgs, params: { readonly stage: Stage }): Refusal | null => {
    const proposal = proposalOf(event);
    const evidence = proposal
      ? mergeEvidence(context.facts.evidence, proposal.evidence)
      : context.facts.evidence;
    const items = unmetDod(params.stage, { intake: context.facts.intake, evidence });
    return items.length === 0 ? null : { code: 'dod_unmet', stage: params.stage, items };
  },
  /** One proposal at a time: none is pending, or the pending one is the one being checked. */
  noPendingProposal: ({ context, event }: GuardArgs): Refusal | null => {
    const pending = context.pendingProposal;
    if (!pending || pending.proposalId === proposalOf(event)?.proposalId) return null;
    return { code: 'proposal_pending', proposalId: pending.proposalId, toStage: pending.toStage };
  },
  /** Four eyes: whoever approves a proposal did not make it (case-insensitive logins). */
  approverIsNotProposer: ({ event }: GuardArgs): Refusal | null => {
    const proposal = proposalOf(event);
    if (!proposal || !('approvedBy' in event) || event.approvedBy === undefined) return null;
    return sameActor(event.approvedBy, proposal.proposedBy)
      ? { code: 'approver_is_proposer', actor: event.approvedBy, proposalId: proposal.proposalId }
      : null;
  },
  /** Leaving `deferred` goes back to the stage it left, and nowhere else forward. */
  resumesTo: ({ context }: GuardArgs, params: { readonly stage: Stage }): Refusal | null =>
    context.resumeStage === params.stage
      ? null
      : {
          code: 'transition_not_allowed',
          from: 'deferred',
          to: params.stage,
          allowed: [],
          resumeStage: context.resumeStage,
        },
  /** Withdrawing bypasses approval, so only the request's own people may do it. */
  actorIsOwner: ({ context, event }: GuardArgs): Refusal | null => {
    const actor = event.type === 'withdraw' ? event.actor : '';
    return context.owners.some((owner) => sameActor(owner, actor))
      ? null
      : { code: 'not_owner', actor, owners: context.owners };
  },
  /**
   * Asking to withdraw is for the request's own people too; a maintainer still decides. Checked
   * when proposed: at approval the proposer is the same (four eyes compares it as a principal).
   */
  proposerIsOwner: ({ context, event }: GuardArgs): Refusal | null => {
    if ('approvedBy' in event && event.approvedBy !== undefined) return null;
    const actor = proposalOf(event)?.proposedBy ?? '';
    return context.owners.some((owner) => sameActor(owner, actor))
      ? null
      : { code: 'not_owner', actor, owners: context.owners };
  },
};

export type LifecycleGuardName = keyof typeof guardExplanations;

const holds = (refusal: Refusal | null): boolean => refusal === null;

const lifecycle = setup({
  types: {
    context: {} as LifecycleContext,
    events: {} as LifecycleEvent,
    input: {} as LifecycleInput,
  },
  guards: {
    dodMet: (args, params: { readonly stage: Stage }) =>
      holds(guardExplanations.dodMet(args, params)),
    noPendingProposal: (args) => holds(guardExplanations.noPendingProposal(args)),
    approverIsNotProposer: (args) => holds(guardExplanations.approverIsNotProposer(args)),
    resumesTo: (args, params: { readonly stage: Stage }) =>
      holds(guardExplanations.resumesTo(args, params)),
    actorIsOwner: (args) => holds(guardExplanations.actorIsOwner(args)),
    proposerIsOwner: (args) => holds(guardExplanations.proposerIsOwner(args)),
  },
  actions: {
    // An approved proposal's evidence joins the facts, and it is no longer pending.
    applyProposal: assign(({ context, event }) => {
      const proposal = proposalOf(event);
      if (!proposal) return {};
      return {
        facts: {
          ...context.facts,
          evidence: mergeEvidence(context.facts.evidence, proposal.evidence),
        },
        pendingProposal: null,
      };
    }),
    rememberResumeStage: assign((_, params: { readonly stage: Stage }) => ({
      resumeStage: params.stage,
    })),
    forgetResumeStage: assign({ resumeStage: null }),
  },
});

// Edge kinds. Every proposal-driven edge needs noPendingProposal and approverIsNotProposer;
// what differs is whether the DoD of the stage being left must hold.

/** Forward along the main line: the DoD of the stage being left must hold. */
const forward = (leaving: Stage, to: Stage) =>
  ({
    target: to,
    guard: and([
      { type: 'dodMet', params: { stage: leaving } },
      'noPendingProposal',
      'approverIsNotProposer',
    ]),
    actions: 'applyProposal',
  }) as const;

/**
 * Without the DoD: back to rework (the stage's DoD did not hold, that is why it goes back)
 * or out to a terminal stage (the work stops).
 */
const withoutDod = (to: Stage) =>
  ({
    target: to,
    guard: and(['noPendingProposal', 'approverIsNotProposer']),
    actions: 'applyProposal',
  }) as const;
const back = withoutDod;
const closeAs = withoutDod;

/** Parks the request; it remembers where to resume. */
const park = (leaving: Stage) =>
  ({
    target: 'deferred',
    guard: and(['noPendingProposal', 'approverIsNotProposer']),
    actions: ['applyProposal', { type: 'rememberResumeStage', params: { stage: leaving } }],
  }) as const;

const DEFERRED: Stage = 'deferred';

/** Resumes to the stage the request left (deferred's DoD is empty, kept for uniformity). */
const resume = (to: Stage) =>
  ({
    target: to,
    guard: and([
      { type: 'resumesTo', params: { stage: to } },
      { type: 'dodMet', params: { stage: DEFERRED } },
      'noPendingProposal',
      'approverIsNotProposer',
    ]),
    actions: 'applyProposal',
  }) as const;

/**
 * Withdrawing directly is the owner's own decision (`withdraw`) or a maintainer's
 * (`maintainer_withdraw`): it needs no approval and may happen while a proposal is pending (the
 * proposal is then abandoned; its PR gets closed). Over MCP an owner only proposes it
 * (`advance.withdrawn`), and a maintainer approves like any other stage change.
 */
const withdrawing = {
  withdraw: { target: 'withdrawn', guard: 'actorIsOwner' },
  maintainer_withdraw: { target: 'withdrawn' },
  'advance.withdrawn': {
    target: 'withdrawn',
    guard: and(['noPendingProposal', 'approverIsNotProposer', 'proposerIsOwner']),
    actions: 'applyProposal',
  },
} as const;

// Rejected and superseded are maintainer decisions, proposed like any other stage change;
// allowed from every active stage (and deferred) because that decision can come at any time.
const closing = {
  'advance.rejected': closeAs('rejected'),
  'advance.superseded': closeAs('superseded'),
  ...withdrawing,
} as const;

export const lifecycleMachine = lifecycle.createMachine({
  id: 'request',
  initial: 'proposed',
  context: ({ input }) => ({
    facts: input.facts,
    owners: input.owners,
    resumeStage: null,
    pendingProposal: null,
  }),
  states: {
    // A draft. Triage accepts it (by approving a proposal) or rejects it on its intake issue,
    // which is why rejected is reached by reject_intake here, not by a proposal. Not
    // deferrable: "not now" for a draft is leaving it proposed; deferring is for accepted work.
    proposed: {
      on: {
        'advance.accepted': forward('proposed', 'accepted'),
        reject_intake: { target: 'rejected' },
        'advance.superseded': closeAs('superseded'),
        ...withdrawing,
      },
    },
    accepted: {
      on: {
        'advance.specified': forward('accepted', 'specified'),
        'advance.deferred': park('accepted'),
        ...closing,
      },
    },
    // No way back to accepted: a spec is revised while specified (new evidence comes with
    // the next proposal), not by un-accepting the request.
    specified: {
      on: {
        'advance.in_progress': forward('specified', 'in_progress'),
        'advance.deferred': park('specified'),
        ...closing,
      },
    },
    in_progress: {
      on: {
        'advance.in_review': forward('in_progress', 'in_review'),
        // Implementation showed the spec is wrong or incomplete: re-specify, then redo its DoD.
        'advance.specified': back('specified'),
        'advance.deferred': park('in_progress'),
        ...closing,
      },
    },
    // Not deferrable: a change under review is sent back to in_progress (and can be parked
    // from there), so its checks and evidence never go stale while parked.
    in_review: {
      on: {
        'advance.verifying': forward('in_review', 'verifying'),
        // Changes requested.
        'advance.in_progress': back('in_progress'),
        ...closing,
      },
    },
    verifying: {
      on: {
        'advance.done': forward('verifying', 'done'),
        // Verification failed: the fix is new work, and it gets reviewed again.
        'advance.in_progress': back('in_progress'),
        ...closing,
      },
    },
    deferred: {
      exit: 'forgetResumeStage',
      on: {
        'advance.accepted': resume('accepted'),
        'advance.specified': resume('specified'),
        'advance.in_progress': resume('in_progress'),
        ...closing,
      },
    },
    done: { type: 'final' },
    rejected: { type: 'final' },
    withdrawn: { type: 'final' },
    superseded: { type: 'final' },
  },
});

export type LifecycleMachine = typeof lifecycleMachine;
