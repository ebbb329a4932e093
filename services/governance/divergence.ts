import { createBookkeepingLog, type BookkeepingLog } from '../commands/bookkeeping.js';
import { commandEventId } from '../commands/event-ids.js';
import { eventMetadata, type CommandMetadata } from '../commands/metadata.js';
import { DuplicateEventId } from '../event-store/errors.js';
import type { EventStore } from '../event-store/types.js';

/**
 * Facts about the repository disagreeing with the log, recorded so the reactor reconciles them
 * (and an auditor sees them) instead of anyone waiting on them. On stream
 * `github-divergence-<requestId>`, never on the request's own stream: they change no request.
 *
 * - `merged_after_decision`: a proposal's pull request was merged after the proposal had ended
 *   (closed and reopened, then merged), or after its request had closed (intake rejected,
 *   withdrawn), or while the deployment's log says it approves locally. The request file on the base branch now says a stage the log never approved →
 *   the reactor comments and opens a restore pull request, named after the merge commit as the
 *   merge's own push names it (one restore per divergence).
 * - `reopened`: a decided proposal's pull request was reopened. Reopening revives nothing →
 *   the reactor comments and closes it again.
 * - `branch_deleted`: a proposal's branch was deleted. Unless its pull request was merged (the
 *   merge decides), a pending proposal can no longer be approved → the reactor ends it
 *   (`StageAdvanceRejected`), comments and closes its pull request if open.
 * - `file_changed`: a push to the base branch changed `requests/<id>.md` (edited or deleted by
 *   hand, or by a merge). The reactor compares the file with the log: the recorded file, or the
 *   one the pending proposal proposes (its merge is being decided), agree; the merge of a pull
 *   request the log recorded as approving nothing gets that merge's restore; the merge of the
 *   pending proposal not yet decided waits for its decision (and is reported if that never
 *   comes); anything else → a pull request restoring the recorded file.
 * - `proposal_branch_pushed`: someone pushed to a pending proposal's branch, so its head is no
 *   longer the commit the reactor made (and recorded). A merge still applies only what the log
 *   records; the reactor comments on the pull request saying so, and after the merge the
 *   `file_changed` path restores a request file that disagrees with the log.
 * - `restore_abandoned`: a pull request restoring a request file was closed unmerged, or its
 *   branch deleted → unless the restore was merged or the file agrees with the log again, the
 *   reactor opens the next restore (`…-r<n>`), at most `MAX_RESTORE_ATTEMPTS` in all, then
 *   leaves it to an operator (a comment on the intake issue, an error log, a failure in the
 *   reactor's status).
 *
 * The receiver records what a delivery says without asking GitHub more, so some records are
 * facts the reactor checks and finds nothing to do about. They change no request and open
 * nothing, and are expected:
 *
 * - `file_changed` for the merge of every counted proposal and of every restore: the file is
 *   the recorded one.
 * - `restore_abandoned` for the deletion of a merged restore's branch (GitHub's "automatically
 *   delete head branches" does it after every merge): the reactor finds the restore merged.
 * - `proposal_branch_pushed` for the reactor's own commit, delivered before the reactor recorded
 *   it: the reactor finds the branch at its own commit and says nothing.
 * - `branch_deleted` for the branch of a merged or decided proposal: the merge (or the decision
 *   already recorded) decides; the reactor says nothing unless the pull request is still open.
 */
export const REPOSITORY_DIVERGED = 'RepositoryDiverged';
export const DIVERGENCE_STREAM_PREFIX = 'github-divergence-';
export const divergenceStreamId = (requestId: string): string =>
  `${DIVERGENCE_STREAM_PREFIX}${requestId}`;

export interface RepositoryDivergedData {
  readonly requestId: string;
  /** Null for `file_changed`, which concerns the request's file, not a proposal. */
  readonly proposalId: string | null;
  readonly kind:
    | 'merged_after_decision'
    | 'reopened'
    | 'branch_deleted'
    | 'file_changed'
    | 'proposal_branch_pushed'
    | 'restore_abandoned';
  /** Null when no pull request is known (`branch_deleted`, `file_changed`, a deleted branch). */
  readonly pullNumber: number | null;
  /** The GitHub login that merged, reopened, deleted, closed or pushed. */
  readonly by: string;
  /**
   * The merge commit, or for `file_changed` and `proposal_branch_pushed` the head commit of the
   * push.
   */
  readonly mergeCommitSha: string | null;
  /** `restore_abandoned`: the restore branch that was deleted or whose pull request closed. */
  readonly branch?: string;
  /** What the log says about the proposal, for the comment. */
  readonly reason: string;
}

/**
 * The log divergences are recorded through: bookkeeping (`commands/bookkeeping.ts`), a fact
 * about GitHub rather than a decision on a request, and it may append nothing else.
 */
export const openDivergenceLog = (eventStore: EventStore): BookkeepingLog =>
  createBookkeepingLog(eventStore, [REPOSITORY_DIVERGED]);

/** Appends once per command (its event id derives from the command id). */
export const recordDivergence = async (
  log: BookkeepingLog,
  data: RepositoryDivergedData,
  meta: CommandMetadata,
): Promise<void> => {
  try {
    await log.record(
      divergenceStreamId(data.requestId),
      [
        {
          id: commandEventId(meta.commandId, 'divergence'),
          type: REPOSITORY_DIVERGED,
          data,
          metadata: eventMetadata(meta),
        },
      ],
      { expectedRevision: 'any' },
    );
  } catch (error) {
    // The same command recorded it before (a redelivery after a crash, with another `at`).
    if (!(error instanceof DuplicateEventId)) throw error;
  }
};
