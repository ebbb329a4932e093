import { WrongExpectedVersion } from '../event-store/errors.js';
import { CogitaveError } from '../runtime/errors.js';
import {
  appendApprovalMode,
  readApprovalMode,
  type ApprovalMode,
  type RecordedApprovalMode,
} from './approval-mode.js';
import { describeMode, maintainerOrThrow, type GovernanceContext } from './context.js';

/**
 * The deployment's approval mode as governance changes and checks it: recorded by the first
 * `serve`, changed only by a maintainer (`cogitave approval-mode set`), and asked before any
 * local decision.
 */
export const recordedMode = (ctx: GovernanceContext): Promise<RecordedApprovalMode | undefined> =>
  readApprovalMode(ctx.eventStore);

/**
 * At `serve`: records the configured mode if the log has none; refuses (FAILED_PRECONDITION)
 * when the log says otherwise — changing it is `setMode`, an explicit operator act.
 */
export const adoptConfiguredMode = async (
  ctx: GovernanceContext,
): Promise<RecordedApprovalMode> => {
  const { configuredMode } = ctx;
  for (;;) {
    const current = await recordedMode(ctx);
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
        ctx.modeLog,
        {
          mode: configuredMode,
          previous: null,
          setBy: 'serve',
          reason: 'first start of the deployment',
          repository: configuredMode === 'github' ? ctx.repository : null,
        },
        null,
        ctx.operatorMeta('system:serve'),
      );
    } catch (error) {
      // Another process recorded it first: read what it recorded.
      if (!(error instanceof WrongExpectedVersion)) throw error;
    }
  }
};

/** `cogitave approval-mode set`: a maintainer changes the deployment's mode (an event). */
export const setMode = async (
  ctx: GovernanceContext,
  input: { readonly mode: ApprovalMode; readonly as: string; readonly reason?: string | undefined },
): Promise<RecordedApprovalMode> => {
  const { mode, as, reason } = input;
  maintainerOrThrow(ctx.principals, as, 'change the approval mode');
  const current = await recordedMode(ctx);
  if (current?.mode === mode) {
    throw new CogitaveError(
      'FAILED_PRECONDITION',
      `The approval mode is already ${describeMode(current)}; nothing changed.`,
      { mode },
    );
  }
  await appendApprovalMode(
    ctx.modeLog,
    {
      mode,
      previous: current?.mode ?? null,
      setBy: as,
      reason: reason ?? `set by ${as}`,
      repository: mode === 'github' ? ctx.repository : null,
    },
    current?.source === 'recorded' ? current.revision : null,
    ctx.operatorMeta(`maintainer:${as}`),
  );
  const after = await recordedMode(ctx);
  if (!after) throw new CogitaveError('INTERNAL', 'the approval mode was not recorded');
  return after;
};

// The deployment's mode, not this process's environment, says whether local approval exists.
export const ensureLocal = async (ctx: GovernanceContext): Promise<void> => {
  const mode = (await recordedMode(ctx)) ?? {
    mode: ctx.configuredMode,
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
