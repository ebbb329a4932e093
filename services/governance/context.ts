import type { BookkeepingLog } from '../commands/bookkeeping.js';
import type { CommandMetadata } from '../commands/metadata.js';
import type { EventStore } from '../event-store/types.js';
import type { PrincipalDirectory } from '../principals/principals.js';
import type { RequestCommandHandlers } from '../requests/commands.js';
import { CogitaveError } from '../runtime/errors.js';
import type { ApprovalMode, RecordedApprovalMode } from './approval-mode.js';

/**
 * What the governance service's parts share (service.ts builds it once): the log to read, the
 * request handlers every decision goes through, the principals, the deployment's configured
 * mode, and the two bookkeeping logs governance records through (the approval mode, the
 * divergences between GitHub and the log).
 */
export interface GovernanceContext {
  readonly eventStore: EventStore;
  readonly handlers: RequestCommandHandlers;
  readonly principals: PrincipalDirectory;
  /** What this process's configuration implies; the log's record wins. */
  readonly configuredMode: ApprovalMode;
  readonly repository: string | null;
  readonly modeLog: BookkeepingLog;
  readonly divergenceLog: BookkeepingLog;
  /** Metadata of an operator's command (a fresh command id, now). */
  readonly operatorMeta: (actor: string) => CommandMetadata;
}

export const describeMode = (mode: RecordedApprovalMode): string =>
  mode.source === 'inferred'
    ? `${mode.mode} (the log shows GitHub issues and pull requests)`
    : `${mode.mode} (set by ${mode.setBy} at ${mode.at})`;

// `as` is a maintainer's name (CLI) or a login's actor such as `token:ada` (console).
export const maintainerOrThrow = (
  principals: PrincipalDirectory,
  as: string,
  what: string,
): void => {
  const principal = principals.principalOf(as.includes(':') ? as : `maintainer:${as}`);
  if (!principal.maintainer) {
    throw new CogitaveError(
      'PERMISSION_DENIED',
      `${as} (principal ${principal.id}) is not a maintainer, so cannot ${what}; maintainers are ${principals.maintainers.join(', ')} (COGITAVE_PRINCIPALS).`,
      { principal: principal.id },
    );
  }
};
