import { randomUUID } from 'node:crypto';
import type { CommandMetadata } from '../commands/metadata.js';
import type { EventStore } from '../event-store/types.js';
import type { PrincipalDirectory } from '../principals/principals.js';
import type { RequestCommandHandlers } from '../requests/commands.js';
import {
  openApprovalModeLog,
  type ApprovalMode,
  type RecordedApprovalMode,
} from './approval-mode.js';
import type { GovernanceContext } from './context.js';
import { openDivergenceLog } from './divergence.js';
import {
  decideLocally,
  decideRequestLocally,
  type LocalDecision,
  type LocalDecisionResult,
  type LocalRequestDecision,
  type LocalRequestDecisionResult,
} from './local-decisions.js';
import {
  applyMerge,
  applyReopen,
  type MergeInput,
  type MergeOutcome,
  type ReopenInput,
} from './merges.js';
import { adoptConfiguredMode, recordedMode, setMode } from './mode-changes.js';

export type {
  LocalDecision,
  LocalDecisionResult,
  LocalRequestDecision,
  LocalRequestDecisionResult,
} from './local-decisions.js';
export type { MergeInput, MergeOutcome } from './merges.js';

/**
 * Governance: the one door every decision on a proposal goes through — the GitHub webhook
 * (a merge or a close), the local approval CLI and the console. It knows the deployment's
 * approval mode (from the log) and the principals, and hands the Request decider, which applies
 * four eyes (approval-rules.ts), the principal directory. A merge that may not count ends the
 * proposal visibly instead of leaving it pending.
 *
 * Its parts: the approval mode (mode-changes.ts), local decisions (local-decisions.ts), merges
 * and reopens delivered from GitHub (merges.ts).
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
  applyReopen(input: ReopenInput, meta: CommandMetadata): Promise<MergeOutcome>;
}

export const createGovernanceService = (deps: GovernanceDeps): GovernanceService => {
  const clock = deps.clock ?? (() => new Date());
  const ctx: GovernanceContext = {
    eventStore: deps.eventStore,
    handlers: deps.handlers,
    principals: deps.principals,
    configuredMode: deps.configuredMode,
    repository: deps.repository,
    modeLog: openApprovalModeLog(deps.eventStore),
    divergenceLog: openDivergenceLog(deps.eventStore),
    operatorMeta: (actor) => ({ commandId: randomUUID(), actor, at: clock().toISOString() }),
  };
  return {
    principals: deps.principals,
    applyReopen: (input, meta) => applyReopen(ctx, input, meta),
    recordedMode: () => recordedMode(ctx),
    adoptConfiguredMode: () => adoptConfiguredMode(ctx),
    setMode: (input) => setMode(ctx, input),
    decideLocally: (input) => decideLocally(ctx, input),
    decideRequestLocally: (input) => decideRequestLocally(ctx, input),
    applyMerge: (input, meta) => applyMerge(ctx, input, meta),
  };
};
