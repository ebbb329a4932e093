import { randomUUID } from 'node:crypto';
import { FORWARD_STAGES, type Stage } from '../../../lifecycle/stages.js';
import type { Evidence } from '../../../lifecycle/evidence.js';
import type { CommandMetadata } from '../../../services/commands/metadata.js';
import { decide, type RequestCommand } from '../../../services/requests/decide.js';
import type { RequestEvent } from '../../../services/requests/events.js';
import { encodePosition } from '../../../services/event-store/position.js';
import { evolveRequest } from '../../../services/requests/fold.js';
import { initialState, type RequestState } from '../../../services/requests/state.js';
import type { Decider } from '../../support/decider-spec.js';
import { EVIDENCE_TO_LEAVE, INTAKE, OWNER } from '../lifecycle/fixtures.js';

/** Givens for Request decider specs: events as they would be stored, and commands. */

export const REQUEST_ID = 'req-2026-0001';
export const MAINTAINER = 'maintainer:bob';
export { OWNER };

export const meta = (actor = OWNER): CommandMetadata => ({
  commandId: randomUUID(),
  actor,
  at: '2026-11-30T08:00:00.000Z',
});

export const pid = (n: number): string => `${REQUEST_ID}-p${n}`;

export const requestProposed = (): RequestEvent => ({
  type: 'RequestProposed',
  data: {
    requestId: REQUEST_ID,
    title: INTAKE.title,
    problem: INTAKE.problem,
    product: INTAKE.product,
    requester: INTAKE.requester,
    acceptanceCriteria: INTAKE.acceptanceCriteria,
    links: [],
    priority: 'medium',
    proposedBy: OWNER,
  },
});

export const stageAdvanceProposed = (
  n: number,
  fromStage: Stage,
  toStage: Stage,
  evidence: Evidence = EVIDENCE_TO_LEAVE[fromStage],
  proposedBy = OWNER,
): RequestEvent => ({
  type: 'StageAdvanceProposed',
  data: {
    requestId: REQUEST_ID,
    proposalId: pid(n),
    fromStage,
    toStage,
    evidence,
    rationale: `Move from ${fromStage} to ${toStage}.`,
    proposedBy,
  },
});

export const approvedAndAdvanced = (
  n: number,
  fromStage: Stage,
  toStage: Stage,
  by = MAINTAINER,
): RequestEvent[] => [
  {
    type: 'StageAdvanceApproved',
    data: {
      requestId: REQUEST_ID,
      proposalId: pid(n),
      approvedBy: by,
      via: 'github',
      mergeCommitSha: null,
    },
  },
  {
    type: 'StageAdvanced',
    data: { requestId: REQUEST_ID, proposalId: pid(n), fromStage, toStage },
  },
];

/** A proposal of n from → to, approved. */
export const moved = (n: number, from: Stage, to: Stage): RequestEvent[] => [
  stageAdvanceProposed(n, from, to),
  ...approvedAndAdvanced(n, from, to),
];

const forwardTo = (stage: Stage): RequestEvent[] => {
  const index = FORWARD_STAGES.indexOf(stage as (typeof FORWARD_STAGES)[number]);
  return FORWARD_STAGES.slice(0, index).flatMap((from, i) =>
    moved(i + 1, from, FORWARD_STAGES[i + 1]!),
  );
};

/** A stored history that reaches `stage` through approved proposals (deferred: from `resumeStage`). */
export const historyTo = (stage: Stage, resumeStage: Stage = 'accepted'): RequestEvent[] => {
  const intake = requestProposed();
  switch (stage) {
    case 'deferred': {
      const before = forwardTo(resumeStage);
      return [intake, ...before, ...moved(before.length / 3 + 1, resumeStage, 'deferred')];
    }
    case 'rejected':
      return [
        intake,
        {
          type: 'IntakeRejected',
          data: {
            requestId: REQUEST_ID,
            rejectedBy: MAINTAINER,
            via: 'github',
            reason: 'Out of scope.',
          },
        },
      ];
    case 'withdrawn':
      return [
        intake,
        {
          type: 'RequestWithdrawn',
          data: { requestId: REQUEST_ID, withdrawnBy: OWNER, reason: 'No longer needed.' },
        },
      ];
    case 'superseded':
      return [intake, ...moved(1, 'proposed', 'superseded')];
    default:
      return [intake, ...forwardTo(stage)];
  }
};

/**
 * Folds one event as if stored next on a fresh log: the revision after the state's, at a
 * position of that revision, one minute after `meta().at` per revision. The request fold needs
 * where an event was stored; a decider spec's `evolve` takes the state and the event only.
 */
export const evolveStored = (state: RequestState, event: RequestEvent): RequestState => {
  const revision = BigInt((state?.version ?? -1) + 1);
  const place = {
    revision,
    position: encodePosition(revision + 1n, revision),
    metadata: { at: new Date(Date.parse(meta().at) + Number(revision) * 60_000).toISOString() },
  };
  return evolveRequest(state, place, event);
};

/** The Request decider, for `spec(requestDecider)` (test/support/decider-spec.ts). */
export const requestDecider: Decider<RequestCommand, RequestEvent, RequestState> = {
  decide,
  evolve: evolveStored,
  initialState: () => initialState,
};

/** Events folded in order after `from` (default: none), as `evolveStored` stores them. */
export const foldEvents = (events: readonly RequestEvent[], from?: RequestState): RequestState =>
  events.reduce<RequestState>(evolveStored, from);

export const given = (...events: readonly RequestEvent[]): RequestState => foldEvents(events);
