import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { lifecycleMachine, type Refusal } from '../../../lifecycle/machine.js';
import { STAGES, TERMINAL_STAGES, type Stage } from '../../../lifecycle/stages.js';
import {
  canApprove,
  canPropose,
  canRejectIntake,
  canWithdraw,
  nextMoves,
  proposableStages,
  snapshotOf,
  type Verdict,
} from '../../../lifecycle/validate.js';
import {
  EVIDENCE_TO_LEAVE,
  EXPECTED_PROPOSABLE,
  facts,
  INTAKE,
  OWNER,
  proposal,
  view,
} from './fixtures.js';

const PROPOSABLE = EXPECTED_PROPOSABLE;

const DEFERRABLE: readonly Stage[] = ['accepted', 'specified', 'in_progress'];
const ACTIVE: readonly Stage[] = STAGES.filter((stage) => !TERMINAL_STAGES.includes(stage));

const reasonsOf = (verdict: Verdict): readonly Refusal[] => (verdict.ok ? [] : verdict.reasons);
const codesOf = (verdict: Verdict): string[] => reasonsOf(verdict).map((reason) => reason.code);

describe('lifecycle machine: edges', () => {
  it('given the machine, when started from its input, then it is in proposed with no pending proposal', () => {
    const [snapshot] = initialTransition(lifecycleMachine, { facts: facts(), owners: [OWNER] });
    expect(snapshot.value).toBe('proposed');
    expect(snapshot.context.pendingProposal).toBeNull();
    expect(snapshot.context.resumeStage).toBeNull();
  });

  for (const [from, expected] of Object.entries(PROPOSABLE).filter(
    ([stage]) => stage !== 'deferred',
  )) {
    it(`given stage ${from}, when listing proposable stages, then they are exactly ${expected.join(', ') || 'none'}`, () => {
      expect(proposableStages(view(from as Stage))).toEqual(expected);
    });
  }

  for (const resumeStage of DEFERRABLE) {
    it(`given a request deferred from ${resumeStage}, when listing proposable stages, then it may resume only to ${resumeStage}`, () => {
      expect(proposableStages(view('deferred', { resumeStage }))).toEqual([
        resumeStage,
        'rejected',
        'superseded',
        'withdrawn',
      ]);
    });
  }

  // Every ordered pair of stages: allowed exactly when the graph above has the edge.
  for (const from of STAGES.filter((stage) => stage !== 'deferred')) {
    for (const to of STAGES) {
      const allowed = PROPOSABLE[from].includes(to);
      it(`given stage ${from} with its DoD met, when proposing ${to}, then it is ${allowed ? 'allowed' : 'refused as not allowed'}`, () => {
        const verdict = canPropose(
          view(from, { facts: facts(EVIDENCE_TO_LEAVE[from]) }),
          proposal(to),
        );
        if (allowed) expect(verdict).toEqual({ ok: true });
        else
          expect(reasonsOf(verdict)).toEqual([
            {
              code: 'transition_not_allowed',
              from,
              to,
              allowed: PROPOSABLE[from],
              resumeStage: null,
            },
          ]);
      });
    }
  }

  it('given every active stage, when the owner withdraws, then it is allowed; given a terminal stage, then not', () => {
    for (const stage of ACTIVE) expect(canWithdraw(view(stage), OWNER)).toEqual({ ok: true });
    for (const stage of TERMINAL_STAGES)
      expect(codesOf(canWithdraw(view(stage), OWNER))).toEqual(['transition_not_allowed']);
  });

  it('given stages other than proposed, when rejecting the intake, then only proposed allows it', () => {
    for (const stage of STAGES) {
      expect(canRejectIntake(view(stage)).ok).toBe(stage === 'proposed');
    }
  });

  it('given a terminal stage, when listing moves, then there are none', () => {
    for (const stage of TERMINAL_STAGES) expect(nextMoves(view(stage))).toEqual([]);
  });
});

describe('lifecycle machine: deferred and resume', () => {
  it('given accepted, when a deferral is approved, then the machine is deferred and remembers accepted', () => {
    const snapshot = snapshotOf(view('accepted'));
    const [parked] = transition(lifecycleMachine, snapshot, {
      type: 'advance.deferred',
      proposal: proposal('deferred'),
      approvedBy: 'maintainer:bob',
    });
    expect(parked.value).toBe('deferred');
    expect(parked.context.resumeStage).toBe('accepted');
  });

  it('given deferred from in_progress, when resuming to in_progress is approved, then it is back there and forgets the resume stage', () => {
    const snapshot = snapshotOf(view('deferred', { resumeStage: 'in_progress' }));
    const [resumed] = transition(lifecycleMachine, snapshot, {
      type: 'advance.in_progress',
      proposal: proposal('in_progress'),
      approvedBy: 'maintainer:bob',
    });
    expect(resumed.value).toBe('in_progress');
    expect(resumed.context.resumeStage).toBeNull();
  });

  it('given deferred from specified, when resuming to accepted, then the event is refused and the snapshot is unchanged', () => {
    const snapshot = snapshotOf(view('deferred', { resumeStage: 'specified' }));
    const event = { type: 'advance.accepted', proposal: proposal('accepted') } as const;
    expect(snapshot.can(event)).toBe(false);
    expect(transition(lifecycleMachine, snapshot, event)[0]).toBe(snapshot);
    expect(
      reasonsOf(canPropose(view('deferred', { resumeStage: 'specified' }), proposal('accepted'))),
    ).toEqual([
      {
        code: 'transition_not_allowed',
        from: 'deferred',
        to: 'accepted',
        allowed: ['specified', 'rejected', 'superseded', 'withdrawn'],
        resumeStage: 'specified',
      },
    ]);
  });

  it('given deferred, when superseded is approved, then the resume stage is forgotten', () => {
    const snapshot = snapshotOf(view('deferred', { resumeStage: 'accepted' }));
    const [closed] = transition(lifecycleMachine, snapshot, {
      type: 'advance.superseded',
      proposal: proposal('superseded'),
      approvedBy: 'maintainer:bob',
    });
    expect(closed.value).toBe('superseded');
    expect(closed.context.resumeStage).toBeNull();
    expect(closed.status).toBe('done');
  });
});

describe('lifecycle machine: guards', () => {
  it('given proposed with a vague criterion, when proposing accepted, then dodMet(stage: proposed) names the unmet item', () => {
    const vague = facts(
      {},
      { acceptanceCriteria: [{ id: 'ac-1', text: 'The export should be fast' }] },
    );
    const reasons = reasonsOf(canPropose(view('proposed', { facts: vague }), proposal('accepted')));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatchObject({
      code: 'dod_unmet',
      stage: 'proposed',
      items: [{ id: 'proposed.acceptance-criteria' }],
    });
  });

  it('given specified with only the accepted evidence, when proposing in_progress, then the DoD of specified (the stage LEFT) is checked', () => {
    const verdict = canPropose(
      view('specified', { facts: facts(EVIDENCE_TO_LEAVE.accepted) }),
      proposal('in_progress'),
    );
    expect(reasonsOf(verdict)).toEqual([
      expect.objectContaining({
        code: 'dod_unmet',
        stage: 'specified',
        items: [
          expect.objectContaining({ id: 'specified.test-plan' }),
          expect.objectContaining({ id: 'specified.rollback-plan' }),
        ],
      }),
    ]);
  });

  it("given specified with nothing accumulated, when the proposal's own evidence completes the DoD, then it is allowed", () => {
    expect(
      canPropose(view('specified'), proposal('in_progress', EVIDENCE_TO_LEAVE.specified)),
    ).toEqual({ ok: true });
  });

  it('given in_progress without evidence, when proposing a back-edge to specified, then no DoD is required', () => {
    expect(canPropose(view('in_progress'), proposal('specified'))).toEqual({ ok: true });
  });

  it('given in_review without evidence, when sending it back to in_progress, then no DoD is required', () => {
    expect(canPropose(view('in_review'), proposal('in_progress'))).toEqual({ ok: true });
  });

  it('given a pending proposal, when proposing another, then noPendingProposal refuses it', () => {
    const pending = proposal('specified', EVIDENCE_TO_LEAVE.accepted, OWNER, 'req-2026-0001-p1');
    const verdict = canPropose(
      view('accepted', { pendingProposal: pending }),
      proposal('deferred', {}, OWNER, 'req-2026-0001-p2'),
    );
    expect(reasonsOf(verdict)).toEqual([
      { code: 'proposal_pending', proposalId: 'req-2026-0001-p1', toStage: 'specified' },
    ]);
  });

  it('given a pending proposal whose DoD fails, when proposing another without evidence, then both reasons are given', () => {
    const pending = proposal('deferred', {}, OWNER, 'req-2026-0001-p1');
    const verdict = canPropose(
      view('accepted', { pendingProposal: pending }),
      proposal('specified', {}, OWNER, 'req-2026-0001-p2'),
    );
    expect(codesOf(verdict)).toEqual(['dod_unmet', 'proposal_pending']);
  });

  it('given a pending proposal, when a different maintainer approves it, then it is allowed', () => {
    const pending = proposal('specified', EVIDENCE_TO_LEAVE.accepted);
    expect(
      canApprove(view('accepted', { pendingProposal: pending }), pending, 'maintainer:bob'),
    ).toEqual({ ok: true });
  });

  it('given a pending proposal, when its proposer approves it (any letter case), then approverIsNotProposer refuses', () => {
    const pending = proposal('specified', EVIDENCE_TO_LEAVE.accepted, 'Agent:Alice');
    const verdict = canApprove(
      view('accepted', { pendingProposal: pending }),
      pending,
      ' agent:alice ',
    );
    expect(reasonsOf(verdict)).toEqual([
      { code: 'approver_is_proposer', actor: ' agent:alice ', proposalId: pending.proposalId },
    ]);
  });

  it('given someone who is neither proposer nor requester, when withdrawing, then actorIsOwner refuses', () => {
    expect(reasonsOf(canWithdraw(view('accepted'), 'agent:mallory'))).toEqual([
      { code: 'not_owner', actor: 'agent:mallory', owners: [OWNER, INTAKE.requester] },
    ]);
    expect(canWithdraw(view('accepted'), 'CAROL')).toEqual({ ok: true });
  });

  it('given an approval, when the machine transitions, then the evidence joins the facts and nothing is pending', () => {
    const pending = proposal('specified', EVIDENCE_TO_LEAVE.accepted);
    const snapshot = snapshotOf(view('accepted', { pendingProposal: pending }));
    const [next] = transition(lifecycleMachine, snapshot, {
      type: 'advance.specified',
      proposal: pending,
      approvedBy: 'maintainer:bob',
    });
    expect(next.value).toBe('specified');
    expect(next.context.facts.evidence).toEqual(EVIDENCE_TO_LEAVE.accepted);
    expect(next.context.pendingProposal).toBeNull();
  });
});
