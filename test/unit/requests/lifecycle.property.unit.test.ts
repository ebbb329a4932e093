import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { lifecycleMachine } from '../../../lifecycle/machine.js';
import { FORWARD_STAGES, STAGES, type Stage } from '../../../lifecycle/stages.js';
import { LIFECYCLE_EDGES } from '../../../lifecycle/transitions.js';
import {
  canApprove,
  canPropose,
  canRejectIntake,
  canWithdraw,
  snapshotOf,
} from '../../../lifecycle/validate.js';
import { decide as decideFor, type RequestCommand } from '../../../services/requests/decide.js';
import type { RequestEvent } from '../../../services/requests/events.js';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import {
  findProposal,
  statusOf,
  type RequestRecord as RequestState,
} from '../../../services/requests/fold.js';
import { lifecycleView, proposalRef } from '../../../services/requests/state.js';
import { EVIDENCE_TO_LEAVE, INTAKE } from '../lifecycle/fixtures.js';
import {
  foldEvents,
  given,
  MAINTAINER,
  meta,
  OWNER,
  pid,
  REQUEST_ID,
  requestProposed,
} from './fixtures.js';
import { PROPERTY_TIMEOUT_MS } from '../../support/property.js';

const ACTORS = [OWNER, INTAKE.requester, MAINTAINER, 'agent:mallory'];

const actor = fc.constantFrom(...ACTORS);
const stage = fc.constantFrom(...STAGES);
// Half the time "the pending proposal", else any of p1..p6 (often unknown or already decided).
const proposalNumber = fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined, freq: 2 });

/**
 * Commands as data. A missing proposal number means "the pending one", and `progress` proposes
 * the next stage with the evidence to leave the current one: without that bias most walks end
 * early in a terminal stage and the later stages would go untested.
 */
const commandArb = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('progress' as const), actor }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('propose' as const),
      to: stage,
      evidenceOf: fc.option(stage, { nil: undefined }),
      actor,
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('approve' as const), n: proposalNumber, actor }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('reject' as const), n: proposalNumber, actor }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), actor }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rejectIntake' as const), actor }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('issue' as const),
      number: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pull' as const),
      n: proposalNumber,
      number: fc.integer({ min: 1, max: 2 }),
    }),
  },
);
type CommandData = typeof commandArb extends fc.Arbitrary<infer T> ? T : never;

const proposalIdOf = (state: RequestState, n: number | undefined): string =>
  n === undefined ? (state.pendingProposalId ?? pid(1)) : pid(n);

/** Where a request in `stage` would usually go next. */
const nextStageOf = (state: RequestState): Stage => {
  const current = state.stage;
  if (current === 'deferred') return state.resumeStage ?? 'accepted';
  const index = FORWARD_STAGES.indexOf(current as (typeof FORWARD_STAGES)[number]);
  return FORWARD_STAGES[index + 1] ?? current;
};

const toCommand = (data: CommandData, state: RequestState): RequestCommand => {
  switch (data.kind) {
    case 'progress':
      return {
        type: 'ProposeStageAdvance',
        input: {
          requestId: REQUEST_ID,
          toStage: nextStageOf(state),
          evidence: EVIDENCE_TO_LEAVE[state.stage],
          rationale: 'Next stage.',
        },
        meta: meta(data.actor),
      };
    case 'propose':
      return {
        type: 'ProposeStageAdvance',
        input: {
          requestId: REQUEST_ID,
          toStage: data.to,
          evidence: data.evidenceOf ? EVIDENCE_TO_LEAVE[data.evidenceOf] : {},
          rationale: 'Random move.',
        },
        meta: meta(data.actor),
      };
    case 'approve':
    case 'reject':
      return {
        type: data.kind === 'approve' ? 'ApproveProposal' : 'RejectProposal',
        input: {
          requestId: REQUEST_ID,
          proposalId: proposalIdOf(state, data.n),
          decidedBy: data.actor,
          via: 'github',
        },
        meta: meta('webhook'),
      };
    case 'withdraw':
      return {
        type: 'Withdraw',
        input: { requestId: REQUEST_ID, reason: 'Random withdrawal.' },
        meta: meta(data.actor),
      };
    case 'rejectIntake':
      return {
        type: 'RejectIntake',
        input: { requestId: REQUEST_ID, decidedBy: data.actor, via: 'local', reason: 'Random.' },
        meta: meta(data.actor),
      };
    case 'issue':
      return {
        type: 'RecordIntakeIssue',
        input: {
          requestId: REQUEST_ID,
          repository: 'o/r',
          issueNumber: data.number,
          issueUrl: `https://github.com/o/r/issues/${data.number}`,
        },
        meta: meta('reactor'),
      };
    case 'pull': {
      const proposalId = proposalIdOf(state, data.n);
      return {
        type: 'RecordProposalPullRequest',
        input: {
          requestId: REQUEST_ID,
          proposalId,
          repository: 'o/r',
          branch: proposalId,
          pullNumber: data.number,
          pullUrl: `https://github.com/o/r/pull/${data.number}`,
        },
        meta: meta('reactor'),
      };
    }
  }
};

/**
 * What the lifecycle machine says about a command: true (must produce events), false (must be
 * refused), 'noop' (already recorded: no events) or undefined (not a lifecycle decision).
 */
const machineSays = (
  command: RequestCommand,
  state: RequestState,
): boolean | 'noop' | undefined => {
  const view = lifecycleView(state)!;
  const closed = state.status === 'closed';
  switch (command.type) {
    case 'ProposeStageAdvance':
      return (
        !closed &&
        canPropose(view, {
          proposalId: pid(state.proposals.length + 1),
          toStage: command.input.toStage,
          evidence: command.input.evidence,
          proposedBy: command.meta.actor,
        }).ok
      );
    case 'ApproveProposal': {
      const proposal = findProposal(state, command.input.proposalId);
      if (!proposal || proposal.outcome === 'rejected') return false;
      if (proposal.outcome === 'approved') return 'noop';
      return !closed && canApprove(view, proposalRef(proposal), command.input.decidedBy).ok;
    }
    case 'Withdraw':
      return view.stage === 'withdrawn'
        ? 'noop'
        : !closed && canWithdraw(view, command.meta.actor).ok;
    case 'RejectIntake':
      return view.stage === 'rejected' ? 'noop' : !closed && canRejectIntake(view).ok;
    default:
      return undefined;
  }
};

const isEdge = (from: Stage, to: Stage): boolean =>
  LIFECYCLE_EDGES.some((edge) => edge.from === from && edge.to === to);

const step = (state: RequestState, data: CommandData): RequestState => {
  const command = toCommand(data, state);
  const expected = machineSays(command, state);
  let events: RequestEvent[];
  try {
    events = decideFor(command, state);
  } catch (error) {
    // A refusal is typed and coded, and the machine agrees it is refused.
    expect(isCogitaveError(error), String(error)).toBe(true);
    if (expected !== undefined) expect(expected).toBe(false);
    return state;
  }
  if (expected === 'noop') expect(events).toEqual([]);
  else if (expected !== undefined) expect(expected).toBe(true);

  const next = foldEvents(events, state)!;
  for (const event of events) {
    if (event.type !== 'StageAdvanced') continue;
    const { fromStage, toStage } = event.data;
    // Only edges of the machine are ever taken, and the machine lands where evolve does.
    expect(isEdge(fromStage, toStage)).toBe(true);
    const proposal = findProposal(state, event.data.proposalId)!;
    const [machineNext] = transition(lifecycleMachine, snapshotOf(lifecycleView(state)!), {
      type: `advance.${toStage}`,
      proposal: proposalRef(proposal),
      approvedBy: MAINTAINER === proposal.proposedBy ? OWNER : MAINTAINER,
    });
    expect(machineNext.value).toBe(next.stage);
    expect(machineNext.context.resumeStage).toBe(next.resumeStage);
    expect(machineNext.context.facts.evidence).toEqual(next.evidence);
  }
  expect(next.status).toBe(statusOf(next.stage));
  expect(next.version).toBe(state.version + events.length);
  if (state.status === 'closed') expect(next.stage).toBe(state.stage);
  const pending =
    next.pendingProposalId === null ? undefined : findProposal(next, next.pendingProposalId);
  if (pending) expect(pending.fromStage).toBe(next.stage);
  expect(
    next.proposals.filter((p) => p.outcome === 'pending' && p.proposalId === next.pendingProposalId)
      .length,
  ).toBeLessThanOrEqual(1);
  return next;
};

describe('Request decider property', () => {
  it(
    'given random command sequences, when decided in order, then only machine edges are taken and refused commands produce no events',
    () => {
      fc.assert(
        fc.property(
          fc.array(commandArb, { minLength: 1, maxLength: 60, size: 'max' }),
          (commands) => {
            let state = given(requestProposed())!;
            for (const data of commands) state = step(state, data);
          },
        ),
        { numRuns: 80 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'given the random walks, when they run, then they reach every stage (the property is not vacuous)',
    () => {
      const reached = new Set<Stage>();
      fc.assert(
        fc.property(
          fc.array(commandArb, { minLength: 20, maxLength: 80, size: 'max' }),
          (commands) => {
            let state = given(requestProposed())!;
            for (const data of commands) {
              state = step(state, data);
              reached.add(state.stage);
            }
          },
        ),
        { numRuns: 80, seed: 20261130 },
      );
      expect([...reached].sort()).toEqual([...STAGES].sort());
    },
    PROPERTY_TIMEOUT_MS,
  );
});
