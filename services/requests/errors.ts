import type { Refusal } from '../../lifecycle/machine.js';
import type { Stage } from '../../lifecycle/stages.js';
import type { WrongExpectedVersion } from '../event-store/errors.js';
import type { ApprovalJudgement } from '../principals/four-eyes.js';
import { CogitaveError, NotFound, type ErrorCode } from '../runtime/errors.js';

/**
 * The typed errors of the Request commands. Each message says what was wrong and what is
 * allowed instead, because the usual reader is an agent deciding its next call; `details`
 * carries the same facts as data (allowed stages, unmet DoD items with ids).
 */

export class RequestNotFound extends NotFound {
  readonly requestId: string;
  constructor(requestId: string) {
    super(
      `Request ${requestId} does not exist: check the id (req-YYYY-NNNN) with list_requests, or submit it with request_intake.`,
      { requestId },
    );
    this.requestId = requestId;
  }
}

export class ProposalNotFound extends NotFound {
  constructor(requestId: string, proposalId: string, known: readonly string[]) {
    super(
      `Request ${requestId} has no proposal ${proposalId}${
        known.length > 0 ? `; its proposals are ${known.join(', ')}` : '; it has no proposals yet'
      }.`,
      { requestId, proposalId, knownProposals: known },
    );
  }
}

/** A fact that contradicts one already recorded (another issue, another PR, a decided proposal). */
export class RecordConflict extends CogitaveError {
  constructor(message: string, details: Record<string, unknown>) {
    super('FAILED_PRECONDITION', message, details);
  }
}

/** The request's stream moved on since the command's decision: reload, decide again, retry. */
export class RequestChanged extends CogitaveError {
  constructor(requestId: string, cause: WrongExpectedVersion) {
    const actual = cause.actual === null ? 'does not exist' : `is now at revision ${cause.actual}`;
    const expected =
      typeof cause.expected === 'bigint' ? `revision ${cause.expected}` : cause.expected;
    super(
      'WRONG_EXPECTED_VERSION',
      `Request ${requestId} changed while this command was decided (expected ${expected}, it ${actual}): reload it (get_request) and retry the command on the current state.`,
      { requestId, ...cause.details },
      { cause },
    );
  }
}

const describeReason = (reason: Refusal): string => {
  switch (reason.code) {
    case 'transition_not_allowed': {
      const allowed = reason.allowed.length > 0 ? reason.allowed.join(', ') : 'none';
      const hints: string[] = [];
      if (reason.from === 'deferred' && reason.resumeStage) {
        hints.push(`a deferred request resumes to the stage it left ("${reason.resumeStage}")`);
      }
      if (reason.to === 'rejected' && reason.from === 'proposed') {
        hints.push('a draft is rejected by closing its intake issue (rejectIntake)');
      }
      return `"${reason.to}" cannot be reached from "${reason.from}". Stages a proposal may target from "${reason.from}": ${allowed}.${
        hints.length > 0 ? ` Note: ${hints.join('; ')}.` : ''
      }`;
    }
    case 'dod_unmet':
      return `The Definition of Done of "${reason.stage}" is not met: ${reason.items
        .map((item) => `[${item.id}] ${item.detail}. ${item.description}`)
        .join(' ')} Attach the missing evidence and propose again.`;
    case 'proposal_pending':
      return `Proposal ${reason.proposalId} (to "${reason.toStage}") is still pending: wait until it is approved (its pull request merged) or rejected (closed) before proposing again.`;
    case 'approver_is_proposer':
      return `${reason.actor} proposed ${reason.proposalId} and cannot approve it: another maintainer must approve (merge) it.`;
    case 'not_owner':
      return `Only the request's intake proposer or requester (${reason.owners.join(', ')}) may withdraw it or ask to, and ${reason.actor} is neither; a maintainer can reject or withdraw it.`;
  }
};

const unmetItems = (reasons: readonly Refusal[]) =>
  reasons.flatMap((reason) => (reason.code === 'dod_unmet' ? reason.items : []));

const allowedStages = (reasons: readonly Refusal[]): readonly Stage[] | undefined =>
  reasons.find((reason) => reason.code === 'transition_not_allowed')?.allowed;

/** The lifecycle refused a command; `reasons` lists every failing rule. */
export class LifecycleRefusal extends CogitaveError {
  readonly reasons: readonly Refusal[];
  constructor(code: ErrorCode, what: string, reasons: readonly Refusal[]) {
    super(code, `${what} is refused. ${reasons.map(describeReason).join(' ')}`, {
      reasons,
      allowedStages: allowedStages(reasons),
      unmetDod: unmetItems(reasons).map(({ id, description, detail }) => ({
        id,
        description,
        detail,
      })),
    });
    this.reasons = reasons;
  }
}

export class TransitionNotAllowed extends LifecycleRefusal {
  constructor(what: string, reasons: readonly Refusal[]) {
    super('FAILED_PRECONDITION', what, reasons);
  }
}

export class ProposalAlreadyPending extends LifecycleRefusal {
  constructor(what: string, reasons: readonly Refusal[]) {
    super('FAILED_PRECONDITION', what, reasons);
  }
}

export class DefinitionOfDoneUnmet extends LifecycleRefusal {
  constructor(what: string, reasons: readonly Refusal[]) {
    super('FAILED_PRECONDITION', what, reasons);
  }
}

export class ApproverIsProposer extends LifecycleRefusal {
  constructor(what: string, reasons: readonly Refusal[]) {
    super('PERMISSION_DENIED', what, reasons);
  }
}

export class NotRequestOwner extends LifecycleRefusal {
  constructor(what: string, reasons: readonly Refusal[]) {
    super('PERMISSION_DENIED', what, reasons);
  }
}

/**
 * An approval that may not count: the approver's principal made the proposal (four eyes), or
 * is not a maintainer. On GitHub the merge happened anyway; the governance service records it
 * as not counting and ends the proposal.
 */
export class ApprovalNotCounted extends CogitaveError {
  readonly judgement: Extract<ApprovalJudgement, { counts: false }>;
  constructor(
    requestId: string,
    proposalId: string,
    judgement: Extract<ApprovalJudgement, { counts: false }>,
  ) {
    super('PERMISSION_DENIED', `Approving ${proposalId} is refused: ${judgement.reason}`, {
      requestId,
      proposalId,
      rule: judgement.code,
      approver: judgement.approver.id,
      proposer: judgement.proposer.id,
    });
    this.judgement = judgement;
  }
}

/** The request is done, rejected, withdrawn or superseded: nothing moves it any more. */
export class RequestClosed extends CogitaveError {
  constructor(requestId: string, stage: Stage, attempted: string) {
    super(
      'FAILED_PRECONDITION',
      `Request ${requestId} is closed (stage "${stage}"), so ${attempted} is not possible; submit a new request with request_intake if the need remains.`,
      { requestId, stage },
    );
  }
}

/**
 * The error for a refusal: its class follows the most fundamental reason (no edge before a
 * pending proposal before an unmet DoD before who is acting); the message lists them all.
 */
export const refusalError = (what: string, reasons: readonly Refusal[]): LifecycleRefusal => {
  const has = (code: Refusal['code']) => reasons.some((reason) => reason.code === code);
  if (has('transition_not_allowed')) return new TransitionNotAllowed(what, reasons);
  if (has('proposal_pending')) return new ProposalAlreadyPending(what, reasons);
  if (has('dod_unmet')) return new DefinitionOfDoneUnmet(what, reasons);
  if (has('approver_is_proposer')) return new ApproverIsProposer(what, reasons);
  return new NotRequestOwner(what, reasons);
};
