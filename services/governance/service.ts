import { randomUUID } from 'node:crypto';
import { TERMINAL_STAGES } from '../../lifecycle/stages.js';
import type { CommandMetadata } from '../commands/metadata.js';
import { WrongExpectedVersion } from '../event-store/errors.js';
import type { EventStore } from '../event-store/types.js';
import type { CommandResult, RequestCommandHandlers } from '../requests/commands.js';
import { ApprovalNotCounted, RecordConflict, RequestClosed } from '../requests/errors.js';
import { requestStreamId, type StageAdvanceRejected } from '../requests/events.js';
import { findProposal, foldRequestStream, type ProposalRecord } from '../requests/fold.js';
import { CogitaveError, InvalidArgument, NotFound } from '../runtime/errors.js';
import {
  appendApprovalMode,
  readApprovalMode,
  type ApprovalMode,
  type RecordedApprovalMode,
} from './approval-mode.js';
import { divergenceStreamId, recordDivergence, type RepositoryDivergedData } from './divergence.js';
import type { PrincipalDirectory } from '../principals/principals.js';

/**
 * Governance: the one door every decision on a proposal goes through — the GitHub webhook
 * (a merge or a close), the local approval CLI and the console. It knows the deployment's
 * approval mode (from the log) and the principals, and hands the Request decider, which applies
 * four eyes (approval-rules.ts), the principal directory. A merge that may not count ends the
 * proposal visibly instead of leaving it pending.
 */
export interface GovernanceDeps {
  readonly eventStore: EventStore;
  readonly handlers: RequestCommandHandlers;
  readonly principals: PrincipalDirectory;
  /** What this process's configuration implies; the log's record wins. */
  readonly configuredMode: ApprovalMode;
  readonly repository: string | null;
  readonly clock?: () => Date;
}

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

export interface GovernanceService {
  readonly principals: PrincipalDirectory;
  /** The deployment's approval mode: recorded (or inferred from GitHub activity), else undefined. */
  recordedMode(): Promise<RecordedApprovalMode | undefined>;
  /**
   * At `serve`: records the configured mode if the log has none; refuses (FAILED_PRECONDITION)
   * when the log says otherwise — changing it is `setMode`, an explicit operator act.
   */
  adoptConfiguredMode(): Promise<RecordedApprovalMode>;
  /** `cogitave approval-mode set`: a maintainer changes the deployment's mode (an event). */
  setMode(input: {
    readonly mode: ApprovalMode;
    readonly as: string;
    readonly reason?: string | undefined;
  }): Promise<RecordedApprovalMode>;
  /** Local approval (CLI, console): refused unless the deployment is in local mode. */
  decideLocally(input: LocalDecision): Promise<LocalDecisionResult>;
  /** Local approval (CLI, console): reject a draft or withdraw a request, local mode only. */
  decideRequestLocally(input: LocalRequestDecision): Promise<LocalRequestDecisionResult>;
  /**
   * A merged proposal pull request: approves it, or records that the merge does not count
   * (the proposal ends), or — merged after the proposal had ended — records the divergence.
   */
  applyMerge(input: MergeInput, meta: CommandMetadata): Promise<MergeOutcome>;
  /** A proposal pull request reopened: recorded when its proposal has ended (it stays ended). */
  applyReopen(
    input: { requestId: string; proposalId: string; pullNumber: number; reopenedBy: string },
    meta: CommandMetadata,
  ): Promise<MergeOutcome>;
}

const PROPOSAL_ID = /^(req-\d{4}-\d+)-p\d+$/;
const REQUEST_ID = /^req-\d{4}-\d{4,}$/;

const describeMode = (mode: RecordedApprovalMode): string =>
  mode.source === 'inferred'
    ? `${mode.mode} (the log shows GitHub issues and pull requests)`
    : `${mode.mode} (set by ${mode.setBy} at ${mode.at})`;

export const createGovernanceService = (deps: GovernanceDeps): GovernanceService => {
  const { eventStore, handlers, principals, configuredMode } = deps;
  const clock = deps.clock ?? (() => new Date());

  const operatorMeta = (actor: string): CommandMetadata => ({
    commandId: randomUUID(),
    actor,
    at: clock().toISOString(),
  });

  const recordedMode = (): Promise<RecordedApprovalMode | undefined> =>
    readApprovalMode(eventStore);

  const adoptConfiguredMode = async (): Promise<RecordedApprovalMode> => {
    for (;;) {
      const current = await recordedMode();
      if (current?.source === 'recorded') {
        if (current.mode === configuredMode) return current;
        throw new CogitaveError(
          'FAILED_PRECONDITION',
          `This deployment's approval mode is ${describeMode(current)}, but this process is configured for ${configuredMode} mode (${configuredMode === 'github' ? 'GitHub credentials are set' : 'no GitHub credentials'}). Configure it for ${current.mode} mode, or change the deployment's mode first: cogitave approval-mode set ${configuredMode} --as <maintainer>.`,
          { recorded: current.mode, configured: configuredMode },
        );
      }
      if (current?.source === 'inferred' && configuredMode !== 'github') {
        throw new CogitaveError(
          'FAILED_PRECONDITION',
          `This deployment has approved on GitHub (its log records GitHub issues and pull requests), but this process has no GitHub credentials. Configure GitHub, or record the change: cogitave approval-mode set local --as <maintainer>.`,
          { recorded: 'github', configured: configuredMode },
        );
      }
      try {
        await appendApprovalMode(
          eventStore,
          {
            mode: configuredMode,
            previous: null,
            setBy: 'serve',
            reason: 'first start of the deployment',
            repository: configuredMode === 'github' ? deps.repository : null,
          },
          null,
          operatorMeta('system:serve'),
        );
      } catch (error) {
        // Another process recorded it first: read what it recorded.
        if (!(error instanceof WrongExpectedVersion)) throw error;
      }
    }
  };

  // `as` is a maintainer's name (CLI) or a login's actor such as `token:ada` (console).
  const maintainerOrThrow = (as: string, what: string): void => {
    const principal = principals.principalOf(as.includes(':') ? as : `maintainer:${as}`);
    if (!principal.maintainer) {
      throw new CogitaveError(
        'PERMISSION_DENIED',
        `${as} (principal ${principal.id}) is not a maintainer, so cannot ${what}; maintainers are ${principals.maintainers.join(', ')} (COGITAVE_PRINCIPALS).`,
        { principal: principal.id },
      );
    }
  };

  const setMode: GovernanceService['setMode'] = async ({ mode, as, reason }) => {
    maintainerOrThrow(as, 'change the approval mode');
    const current = await recordedMode();
    if (current?.mode === mode) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `The approval mode is already ${describeMode(current)}; nothing changed.`,
        { mode },
      );
    }
    await appendApprovalMode(
      eventStore,
      {
        mode,
        previous: current?.mode ?? null,
        setBy: as,
        reason: reason ?? `set by ${as}`,
        repository: mode === 'github' ? deps.repository : null,
      },
      current?.source === 'recorded' ? current.revision : null,
      operatorMeta(`maintainer:${as}`),
    );
    const after = await recordedMode();
    if (!after) throw new CogitaveError('INTERNAL', 'the approval mode was not recorded');
    return after;
  };

  // The deployment's mode, not this process's environment, says whether local approval exists.
  const ensureLocal = async (): Promise<void> => {
    const mode = (await recordedMode()) ?? {
      mode: configuredMode,
      source: 'configured' as const,
    };
    if (mode.mode === 'github') {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `This deployment approves on GitHub${'setBy' in mode ? `: its approval mode is ${describeMode(mode)}` : ''}. Proposals are approved by merging their pull request and rejected by closing it, not from the command line; to switch, a maintainer runs cogitave approval-mode set local --as <maintainer>.`,
        { mode: mode.mode },
      );
    }
  };

  const decideLocally: GovernanceService['decideLocally'] = async (input) => {
    const requestId = PROPOSAL_ID.exec(input.proposalId)?.[1];
    if (requestId === undefined) {
      throw new InvalidArgument(
        `"${input.proposalId}" is not a proposal id; they look like req-2026-0001-p1 (see "cogitave proposals list")`,
      );
    }
    await ensureLocal();
    const history = await eventStore.readStream(requestStreamId(requestId));
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
    const meta = operatorMeta(input.actor ?? `maintainer:${input.as}`);
    const decision = {
      requestId,
      proposalId: input.proposalId,
      decidedBy: input.as,
      via: 'local' as const,
    };
    const result =
      input.decision === 'approve'
        ? await handlers.approveProposal({ ...decision, mergeCommitSha: null }, meta)
        : await handlers.rejectProposal({ ...decision, reason: input.reason }, meta);
    return { ...result, proposal };
  };

  const decideRequestLocally: GovernanceService['decideRequestLocally'] = async (input) => {
    const { requestId } = input;
    if (!REQUEST_ID.test(requestId)) {
      throw new InvalidArgument(
        `"${requestId}" is not a request id; they look like req-2026-0001 (see "cogitave proposals list" or list_requests)`,
      );
    }
    await ensureLocal();
    const toStage = input.decision === 'withdraw' ? 'withdrawn' : 'rejected';
    // No proposal, so no proposer to tell apart: what counts is that a maintainer decides.
    maintainerOrThrow(
      input.as,
      input.decision === 'withdraw' ? 'withdraw a request' : 'reject an intake',
    );
    const state = foldRequestStream(await eventStore.readStream(requestStreamId(requestId)));
    if (!state) throw new NotFound(`No request ${requestId}; check the id (req-YYYY-NNNN)`);
    // The handlers treat deciding again as a no-op; say so instead of reporting a decision.
    if (TERMINAL_STAGES.includes(state.stage)) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `Request ${requestId} is already ${state.stage}, so it cannot be ${toStage}; nothing changed.`,
      );
    }
    const meta = operatorMeta(input.actor ?? `maintainer:${input.as}`);
    const decision = {
      requestId,
      decidedBy: input.as,
      via: 'local' as const,
      reason: input.reason,
    };
    const result =
      input.decision === 'withdraw'
        ? await handlers.withdrawByMaintainer(decision, meta)
        : await handlers.rejectIntake(decision, meta);
    return { ...result, fromStage: state.stage, toStage };
  };

  /**
   * A merge that approves nothing while its proposal stays as the log has it: recorded once per
   * merge (`merged_after_decision`, which the reactor answers by restoring the request file);
   * another delivery of it, or of a merge already recorded as not counting, records nothing new.
   */
  const mergeApprovesNothing = async (
    input: MergeInput,
    meta: CommandMetadata,
    reason: string,
  ): Promise<MergeOutcome> => {
    const history = await eventStore.readStream(requestStreamId(input.requestId));
    const revision = history.at(-1)?.revision ?? -1n;
    const notCounted = history.find(
      (event) =>
        event.type === 'StageAdvanceRejected' &&
        (event.data as StageAdvanceRejected['data']).proposalId === input.proposalId &&
        (event.data as StageAdvanceRejected['data']).mergeNotCounted?.pullNumber ===
          input.pullNumber,
    );
    if (notCounted) {
      const recorded = (notCounted.data as StageAdvanceRejected['data']).reason;
      return { requestId: input.requestId, revision, counted: false, reason: recorded };
    }
    const known = (await eventStore.readStream(divergenceStreamId(input.requestId))).find(
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
      eventStore,
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

  const applyMerge: GovernanceService['applyMerge'] = async (input, meta) => {
    const decision = {
      requestId: input.requestId,
      proposalId: input.proposalId,
      decidedBy: input.mergedBy,
      via: 'github' as const,
    };
    // A deployment whose log says it approves locally takes no merge as an approval, whatever
    // the process that received it is configured for (it may run until restarted).
    const mode = await recordedMode();
    if (mode?.source === 'recorded' && mode.mode === 'local') {
      const state = foldRequestStream(
        await eventStore.readStream(requestStreamId(input.requestId)),
      );
      if (state && findProposal(state, input.proposalId)?.outcome === 'pending') {
        return mergeApprovesNothing(
          input,
          meta,
          `Pull request #${input.pullNumber} was merged by ${input.mergedBy}, but this deployment approves locally (its approval mode is ${describeMode(mode)}): the merge approves nothing, and proposal ${input.proposalId} waits for a maintainer's local decision.`,
        );
      }
    }
    try {
      const result = await handlers.approveProposal(
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
          input,
          meta,
          `Pull request #${input.pullNumber} was merged by ${input.mergedBy} after request ${input.requestId} had closed (stage ${String(error.details.stage)}); proposal ${input.proposalId} ended with it, and the merge approves nothing.`,
        );
      }
      if (error instanceof RecordConflict && error.details.outcome === 'rejected') {
        return mergeApprovesNothing(
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
      const result = await handlers.rejectProposal(
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

  const applyReopen: GovernanceService['applyReopen'] = async (input, meta) => {
    const history = await eventStore.readStream(requestStreamId(input.requestId));
    const state = foldRequestStream(history);
    const proposal = state && findProposal(state, input.proposalId);
    const revision = history.at(-1)?.revision ?? -1n;
    if (!proposal || proposal.outcome === 'pending') {
      return { requestId: input.requestId, revision, counted: true };
    }
    const reason = `Pull request #${input.pullNumber} was reopened by ${input.reopenedBy}, but proposal ${input.proposalId} was already ${proposal.outcome}; reopening revives nothing, so it is closed again. Propose the change again instead.`;
    await recordDivergence(
      eventStore,
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

  return {
    principals,
    applyReopen,
    recordedMode,
    adoptConfiguredMode,
    setMode,
    decideLocally,
    decideRequestLocally,
    applyMerge,
  };
};
