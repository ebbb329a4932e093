import { TERMINAL_STAGES } from '../../lifecycle/stages.js';
import type { CommandResult } from '../requests/commands.js';
import { requestStreamId } from '../requests/events.js';
import { findProposal, foldRequestStream, type ProposalRecord } from '../requests/fold.js';
import { CogitaveError, InvalidArgument, NotFound } from '../runtime/errors.js';
import { maintainerOrThrow, type GovernanceContext } from './context.js';
import { ensureLocal } from './mode-changes.js';

/**
 * Local approval (`cogitave proposals approve|reject`, the console): a maintainer decides a
 * proposal or a request directly, only on a deployment whose log says it approves locally.
 */
export interface LocalDecision {
  readonly proposalId: string;
  readonly decision: 'approve' | 'reject';
  /** The maintainer deciding: a principal name or a GitHub login. */
  readonly as: string;
  readonly reason?: string | undefined;
  /** The events' actor (default `maintainer:<as>`; the console passes its login's). */
  readonly actor?: string | undefined;
}

/** A maintainer's direct decision on a request (no proposal): reject its intake, withdraw it. */
export interface LocalRequestDecision {
  readonly requestId: string;
  readonly decision: 'reject-intake' | 'withdraw';
  readonly as: string;
  readonly reason: string;
  /** The events' actor (default `maintainer:<as>`). */
  readonly actor?: string | undefined;
}

export interface LocalRequestDecisionResult extends CommandResult {
  readonly fromStage: string;
  readonly toStage: string;
}

export interface LocalDecisionResult extends CommandResult {
  readonly proposal: ProposalRecord;
}

const PROPOSAL_ID = /^(req-\d{4}-\d+)-p\d+$/;
const REQUEST_ID = /^req-\d{4}-\d{4,}$/;

/** Local approval (CLI, console): refused unless the deployment is in local mode. */
export const decideLocally = async (
  ctx: GovernanceContext,
  input: LocalDecision,
): Promise<LocalDecisionResult> => {
  const requestId = PROPOSAL_ID.exec(input.proposalId)?.[1];
  if (requestId === undefined) {
    throw new InvalidArgument(
      `"${input.proposalId}" is not a proposal id; they look like req-2026-0001-p1 (see "cogitave proposals list")`,
    );
  }
  await ensureLocal(ctx);
  const history = await ctx.eventStore.readStream(requestStreamId(requestId));
  const state = foldRequestStream(history);
  const proposal = state && findProposal(state, input.proposalId);
  if (!proposal) {
    throw new NotFound(
      `No proposal ${input.proposalId} in request ${requestId}; "cogitave proposals list" shows the pending ones`,
    );
  }
  // The handlers treat deciding again as a no-op; say so instead of reporting a decision.
  if (proposal.outcome !== 'pending') {
    throw new CogitaveError(
      'FAILED_PRECONDITION',
      `Proposal ${input.proposalId} was already ${proposal.outcome}; nothing changed ("cogitave proposals list" shows the pending ones)`,
    );
  }
  const meta = ctx.operatorMeta(input.actor ?? `maintainer:${input.as}`);
  const decision = {
    requestId,
    proposalId: input.proposalId,
    decidedBy: input.as,
    via: 'local' as const,
  };
  const result =
    input.decision === 'approve'
      ? await ctx.handlers.approveProposal({ ...decision, mergeCommitSha: null }, meta)
      : await ctx.handlers.rejectProposal({ ...decision, reason: input.reason }, meta);
  return { ...result, proposal };
};

/** Local approval (CLI, console): reject a draft or withdraw a request, local mode only. */
export const decideRequestLocally = async (
  ctx: GovernanceContext,
  input: LocalRequestDecision,
): Promise<LocalRequestDecisionResult> => {
  const { requestId } = input;
  if (!REQUEST_ID.test(requestId)) {
    throw new InvalidArgument(
      `"${requestId}" is not a request id; they look like req-2026-0001 (see "cogitave proposals list" or list_requests)`,
    );
  }
  await ensureLocal(ctx);
  const toStage = input.decision === 'withdraw' ? 'withdrawn' : 'rejected';
  // No proposal, so no proposer to tell apart: what counts is that a maintainer decides.
  maintainerOrThrow(
    ctx.principals,
    input.as,
    input.decision === 'withdraw' ? 'withdraw a request' : 'reject an intake',
  );
  const state = foldRequestStream(await ctx.eventStore.readStream(requestStreamId(requestId)));
  if (!state) throw new NotFound(`No request ${requestId}; check the id (req-YYYY-NNNN)`);
  // The handlers treat deciding again as a no-op; say so instead of reporting a decision.
  if (TERMINAL_STAGES.includes(state.stage)) {
    throw new CogitaveError(
      'FAILED_PRECONDITION',
      `Request ${requestId} is already ${state.stage}, so it cannot be ${toStage}; nothing changed.`,
    );
  }
  const meta = ctx.operatorMeta(input.actor ?? `maintainer:${input.as}`);
  const decision = {
    requestId,
    decidedBy: input.as,
    via: 'local' as const,
    reason: input.reason,
  };
  const result =
    input.decision === 'withdraw'
      ? await ctx.handlers.withdrawByMaintainer(decision, meta)
      : await ctx.handlers.rejectIntake(decision, meta);
  return { ...result, fromStage: state.stage, toStage };
};
