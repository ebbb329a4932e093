import type { CommandMetadata } from '../commands/metadata.js';
import type { CommandResult } from '../requests/commands.js';
import { ApprovalNotCounted, RecordConflict, RequestClosed } from '../requests/errors.js';
import { requestStreamId, type StageAdvanceRejected } from '../requests/events.js';
import { findProposal, foldRequestStream } from '../requests/fold.js';
import { describeMode, type GovernanceContext } from './context.js';
import { divergenceStreamId, recordDivergence, type RepositoryDivergedData } from './divergence.js';
import { recordedMode } from './mode-changes.js';

/**
 * Merges and reopens of proposals' pull requests, as the webhook delivers them: a merge
 * approves (four eyes in the Request decider), or ends the proposal visibly when it may not
 * count, or — merged after the proposal or its request ended, or on a deployment that approves
 * locally — is recorded once as approving nothing (`merged_after_decision`).
 */
export interface MergeInput {
  readonly requestId: string;
  readonly proposalId: string;
  readonly mergedBy: string;
  readonly pullNumber: number;
  readonly mergeCommitSha: string | null;
}

export type MergeOutcome =
  | (CommandResult & { readonly counted: true })
  | (CommandResult & { readonly counted: false; readonly reason: string });

export interface ReopenInput {
  requestId: string;
  proposalId: string;
  pullNumber: number;
  reopenedBy: string;
}

/**
 * A merge that approves nothing while its proposal stays as the log has it: recorded once per
 * merge (`merged_after_decision`, which the reactor answers by restoring the request file);
 * another delivery of it, or of a merge already recorded as not counting, records nothing new.
 */
const mergeApprovesNothing = async (
  ctx: GovernanceContext,
  input: MergeInput,
  meta: CommandMetadata,
  reason: string,
): Promise<MergeOutcome> => {
  const history = await ctx.eventStore.readStream(requestStreamId(input.requestId));
  const revision = history.at(-1)?.revision ?? -1n;
  const notCounted = history.find(
    (event) =>
      event.type === 'StageAdvanceRejected' &&
      (event.data as StageAdvanceRejected['data']).proposalId === input.proposalId &&
      (event.data as StageAdvanceRejected['data']).mergeNotCounted?.pullNumber === input.pullNumber,
  );
  if (notCounted) {
    const recorded = (notCounted.data as StageAdvanceRejected['data']).reason;
    return { requestId: input.requestId, revision, counted: false, reason: recorded };
  }
  const known = (await ctx.eventStore.readStream(divergenceStreamId(input.requestId))).find(
    (event) => {
      const data = event.data as RepositoryDivergedData;
      return (
        data.kind === 'merged_after_decision' &&
        data.proposalId === input.proposalId &&
        data.pullNumber === input.pullNumber
      );
    },
  );
  if (known) {
    const recorded = (known.data as RepositoryDivergedData).reason;
    return { requestId: input.requestId, revision, counted: false, reason: recorded };
  }
  await recordDivergence(
    ctx.divergenceLog,
    {
      requestId: input.requestId,
      proposalId: input.proposalId,
      kind: 'merged_after_decision',
      pullNumber: input.pullNumber,
      by: input.mergedBy,
      mergeCommitSha: input.mergeCommitSha,
      reason,
    },
    meta,
  );
  return { requestId: input.requestId, revision, counted: false, reason };
};

/**
 * A deployment whose log says it approves locally takes no merge of a pending proposal as an
 * approval, whatever the process that received it is configured for (it may run until
 * restarted). The outcome when that is so; undefined when the merge is to be decided.
 */
const mergeOnLocalDeployment = async (
  ctx: GovernanceContext,
  input: MergeInput,
  meta: CommandMetadata,
): Promise<MergeOutcome | undefined> => {
  const mode = await recordedMode(ctx);
  if (mode?.source !== 'recorded' || mode.mode !== 'local') return undefined;
  const state = foldRequestStream(
    await ctx.eventStore.readStream(requestStreamId(input.requestId)),
  );
  if (!state || findProposal(state, input.proposalId)?.outcome !== 'pending') return undefined;
  return mergeApprovesNothing(
    ctx,
    input,
    meta,
    `Pull request #${input.pullNumber} was merged by ${input.mergedBy}, but this deployment approves locally (its approval mode is ${describeMode(mode)}): the merge approves nothing, and proposal ${input.proposalId} waits for a maintainer's local decision.`,
  );
};

/**
 * A merged proposal pull request: approves it, or records that the merge does not count
 * (the proposal ends), or — merged after the proposal had ended — records the divergence.
 */
export const applyMerge = async (
  ctx: GovernanceContext,
  input: MergeInput,
  meta: CommandMetadata,
): Promise<MergeOutcome> => {
  const decision = {
    requestId: input.requestId,
    proposalId: input.proposalId,
    decidedBy: input.mergedBy,
    via: 'github' as const,
  };
  const onLocal = await mergeOnLocalDeployment(ctx, input, meta);
  if (onLocal) return onLocal;
  try {
    const result = await ctx.handlers.approveProposal(
      {
        ...decision,
        mergeCommitSha: input.mergeCommitSha,
        reason: `pull request #${input.pullNumber} merged`,
      },
      meta,
    );
    return { ...result, counted: true };
  } catch (error) {
    // Merged after the proposal ended (rejected, or abandoned with its closed request): the
    // merge approves nothing, and the file it changed is restored (`merged_after_decision`).
    if (error instanceof RequestClosed) {
      return mergeApprovesNothing(
        ctx,
        input,
        meta,
        `Pull request #${input.pullNumber} was merged by ${input.mergedBy} after request ${input.requestId} had closed (stage ${String(error.details.stage)}); proposal ${input.proposalId} ended with it, and the merge approves nothing.`,
      );
    }
    if (error instanceof RecordConflict && error.details.outcome === 'rejected') {
      return mergeApprovesNothing(
        ctx,
        input,
        meta,
        `Pull request #${input.pullNumber} was merged by ${input.mergedBy} after proposal ${input.proposalId} had ended (rejected); the merge approves nothing.`,
      );
    }
    if (!(error instanceof ApprovalNotCounted)) throw error;
    const { judgement } = error;
    // The merge happened; it just is not an approval. End the proposal and say why, so the
    // agent can propose again and the reactor can restore the request file.
    const reason = `Pull request #${input.pullNumber} was merged by ${input.mergedBy}, but the merge does not count as approval: ${judgement.reason} The proposal has ended; propose the change again for another maintainer to merge.`;
    const result = await ctx.handlers.rejectProposal(
      {
        ...decision,
        reason,
        mergeNotCounted: {
          pullNumber: input.pullNumber,
          mergedBy: input.mergedBy,
          mergeCommitSha: input.mergeCommitSha,
          rule: judgement.code,
          principal: judgement.approver.id,
        },
      },
      meta,
    );
    return { ...result, counted: false, reason };
  }
};

/** A proposal pull request reopened: recorded when its proposal has ended (it stays ended). */
export const applyReopen = async (
  ctx: GovernanceContext,
  input: ReopenInput,
  meta: CommandMetadata,
): Promise<MergeOutcome> => {
  const history = await ctx.eventStore.readStream(requestStreamId(input.requestId));
  const state = foldRequestStream(history);
  const proposal = state && findProposal(state, input.proposalId);
  const revision = history.at(-1)?.revision ?? -1n;
  if (!proposal || proposal.outcome === 'pending') {
    return { requestId: input.requestId, revision, counted: true };
  }
  const reason = `Pull request #${input.pullNumber} was reopened by ${input.reopenedBy}, but proposal ${input.proposalId} was already ${proposal.outcome}; reopening revives nothing, so it is closed again. Propose the change again instead.`;
  await recordDivergence(
    ctx.divergenceLog,
    {
      requestId: input.requestId,
      proposalId: input.proposalId,
      kind: 'reopened',
      pullNumber: input.pullNumber,
      by: input.reopenedBy,
      mergeCommitSha: null,
      reason,
    },
    meta,
  );
  return { requestId: input.requestId, revision, counted: false, reason };
};
