import type { RecordedEvent } from '../../event-store/types.js';
import type { Logger } from '../../runtime/logger.js';
import type { GitHubOperations } from '../operations.js';

/** A proposal's pull request merged on GitHub whose decision the log does not hold yet. */
export interface UndecidedMerge {
  readonly requestId: string;
  readonly proposalId: string;
  readonly pullNumber: number;
  /** The commit of the push that showed the merge. */
  readonly commit: string;
}

export interface ReconcileDeps {
  readonly github: GitHubOperations;
  readonly logger: Logger;
  readonly readStream: (streamId: string) => Promise<RecordedEvent[]>;
  /** Ends a pending proposal whose branch is gone (the reactor's command, id from the event). */
  readonly rejectProposal: (
    input: { requestId: string; proposalId: string; reason: string },
    event: RecordedEvent,
  ) => Promise<void>;
  /**
   * A merge GitHub shows whose decision is not in the log: kept (and reported) until the
   * decision is recorded, so a lost delivery is not waited on silently.
   */
  readonly awaitDecision: (merge: UndecidedMerge) => Promise<void>;
}
