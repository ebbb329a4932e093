import type { RequestFacts } from './dod.js';
import {
  guardExplanations,
  lifecycleMachine,
  type AdvanceEvent,
  type LifecycleContext,
  type LifecycleEvent,
  type LifecycleEventType,
  type ProposalRef,
  type Refusal,
} from './machine.js';
import type { Stage } from './stages.js';
import { LIFECYCLE_EDGES, type GuardRef, type LifecycleEdge } from './transitions.js';

/**
 * The machine as a validator. Each `can…` rebuilds a snapshot from the request's stored stage
 * and context and asks `snapshot.can(event)`: that is the verdict. Only when it is "no" are
 * the edge's guards evaluated one by one to say why (the guards' own explanations), so the
 * reasons never contradict the verdict.
 */

/** What the decider knows about a request, in the machine's terms. */
export interface LifecycleView {
  readonly stage: Stage;
  readonly facts: RequestFacts;
  readonly owners: readonly string[];
  readonly resumeStage: Stage | null;
  readonly pendingProposal: ProposalRef | null;
}

export type Verdict =
  { readonly ok: true } | { readonly ok: false; readonly reasons: readonly Refusal[] };

const OK: Verdict = { ok: true };

const contextOf = (view: LifecycleView): LifecycleContext => ({
  facts: view.facts,
  owners: view.owners,
  resumeStage: view.resumeStage,
  pendingProposal: view.pendingProposal,
});

export const snapshotOf = (view: LifecycleView) =>
  lifecycleMachine.resolveState({ value: view.stage, context: contextOf(view) });

interface GuardArgs {
  readonly context: LifecycleContext;
  readonly event: LifecycleEvent;
}

const explain = (guard: GuardRef, args: GuardArgs): Refusal | null =>
  'params' in guard
    ? guardExplanations[guard.type](args, guard.params)
    : guardExplanations[guard.type](args);

/** Routing guards pick between edges (where deferred resumes); they are not "conditions". */
const routes = (edge: LifecycleEdge, args: GuardArgs): boolean =>
  edge.guards.every((guard) => guard.type !== 'resumesTo' || explain(guard, args) === null);

/** The moves the stage allows at all, whether or not their conditions hold now. */
export const nextMoves = (
  view: LifecycleView,
): readonly { readonly to: Stage; readonly event: LifecycleEventType }[] => {
  const probe: GuardArgs = { context: contextOf(view), event: { type: 'reject_intake' } };
  return LIFECYCLE_EDGES.filter((edge) => edge.from === view.stage && routes(edge, probe)).map(
    ({ to, event }) => ({ to, event }),
  );
};

/** Stages a stage proposal may target from where the request is. */
export const proposableStages = (view: LifecycleView): Stage[] =>
  nextMoves(view)
    .filter((move) => move.event.startsWith('advance.'))
    .map((move) => move.to);

const notAllowed = (view: LifecycleView, to: Stage): Refusal => ({
  code: 'transition_not_allowed',
  from: view.stage,
  to,
  allowed: proposableStages(view),
  resumeStage: view.resumeStage,
});

/** Why `event` (towards `to`) is refused: a missing edge, or each failing guard of the edge. */
export const explainRefusal = (
  view: LifecycleView,
  event: LifecycleEvent,
  to: Stage,
): Refusal[] => {
  const args: GuardArgs = { context: contextOf(view), event };
  const edge = LIFECYCLE_EDGES.find(
    (candidate) =>
      candidate.from === view.stage &&
      candidate.event === event.type &&
      candidate.to === to &&
      routes(candidate, args),
  );
  if (!edge) return [notAllowed(view, to)];
  const reasons = edge.guards.flatMap((guard) => explain(guard, args) ?? []);
  // Unreachable while the guards explain themselves; kept so a refusal always has a reason.
  return reasons.length > 0 ? reasons : [notAllowed(view, to)];
};

const check = (view: LifecycleView, event: LifecycleEvent, to: Stage): Verdict =>
  snapshotOf(view).can(event) ? OK : { ok: false, reasons: explainRefusal(view, event, to) };

const advance = (proposal: ProposalRef, approvedBy?: string): AdvanceEvent => ({
  type: `advance.${proposal.toStage}`,
  proposal,
  ...(approvedBy === undefined ? {} : { approvedBy }),
});

/** May this proposal be made now: an edge to its stage, the DoD, no other pending proposal. */
export const canPropose = (view: LifecycleView, proposal: ProposalRef): Verdict =>
  check(view, advance(proposal), proposal.toStage);

/** May `approvedBy` approve `proposal` (the pending one): the same edge, plus four eyes. */
export const canApprove = (
  view: LifecycleView,
  proposal: ProposalRef,
  approvedBy: string,
): Verdict => check(view, advance(proposal, approvedBy), proposal.toStage);

export const canWithdraw = (view: LifecycleView, actor: string): Verdict =>
  check(view, { type: 'withdraw', actor }, 'withdrawn');

/** A maintainer withdraws a request directly (the CLI, the console): any active stage. */
export const canMaintainerWithdraw = (view: LifecycleView): Verdict =>
  check(view, { type: 'maintainer_withdraw' }, 'withdrawn');

export const canRejectIntake = (view: LifecycleView): Verdict =>
  check(view, { type: 'reject_intake' }, 'rejected');
