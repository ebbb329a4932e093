import type { RecordedEvent } from '../event-store/types.js';
import type { RepositoryDivergedData } from '../governance/divergence.js';
import { reconcileAbandonedRestore } from './reconcile/abandoned-restore.js';
import { reconcileBranchPush, reconcileDeletedBranch } from './reconcile/branches.js';
import type { ReconcileDeps } from './reconcile/deps.js';
import { reconcileFileChange } from './reconcile/file-change.js';
import { restoreAfterUncountedMerge } from './reconcile/uncounted-merge.js';

export { MAX_RESTORE_ATTEMPTS } from './reconcile/abandoned-restore.js';
export {
  fileChangedMarker,
  fileRestoreBranch,
  renderRecordedRequestFile,
} from './reconcile/base-file.js';
export { branchPushedMarker } from './reconcile/branches.js';
export {
  intakeClosedMarker,
  reconcileClosedRequest,
  requestClosedMarker,
} from './reconcile/closed-request.js';
export type { ReconcileDeps, UndecidedMerge } from './reconcile/deps.js';
export { reconcileCountedMerge } from './reconcile/file-change.js';
export {
  notCountedMarker,
  reconcileUncountedMerge,
  restoreBranch,
} from './reconcile/uncounted-merge.js';

/**
 * Making the repository agree with the log again after a merge that did not count (its merger
 * may not approve it, or its proposal or request had ended). The merge put the proposed stage
 * into `requests/<id>.md` on the base branch while the log approved nothing; the reactor
 *
 * 1. comments on the merged pull request: who merged, why it does not count, what happens now;
 * 2. opens a pull request that puts the file back to what the log says (the file of the last
 *    approved stage, byte for byte as its own pull request wrote it; before any approval, a
 *    file saying nothing was approved). Merging it needs no four eyes: it changes no stage, the
 *    log already holds the truth. Its branch is not a proposal branch, so its merge is not a
 *    decision.
 *
 * **One restore per divergence.** The merge is seen twice — as a decision (the pull request
 * closed) and as a push to the base branch changing the file — in either order, each possibly
 * redelivered, and the reactor may handle either again after a restart. Every path names the
 * restore after the commit that made the file disagree, `cogitave/restore-<id>-<commit12>`, the
 * name the push path gives it too, so whichever comes first opens it and the others find it.
 * Only a merge whose commit is unknown falls back to `cogitave/restore-<proposalId>` (the name
 * earlier versions gave every such restore, still looked up).
 *
 * Every step looks up before it creates, so handling the event again changes nothing.
 *
 * Its parts: the request file on the base branch held to the log (reconcile/base-file.ts,
 * reconcile/file-change.ts), merges that approved nothing (reconcile/uncounted-merge.ts), closed
 * requests (reconcile/closed-request.ts), deleted and pushed proposal branches
 * (reconcile/branches.ts), abandoned restores (reconcile/abandoned-restore.ts).
 */

/** `RepositoryDiverged`: the repository and the log disagree (see divergence.ts). */
export const reconcileDivergence = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const data = (event as RecordedEvent<string, RepositoryDivergedData>).data;
  if (data.kind === 'file_changed') {
    const check = { requestId: data.requestId, by: data.by };
    await reconcileFileChange(deps, { ...check, commit: data.mergeCommitSha ?? 'unknown' }, signal);
    return;
  }
  if (data.kind === 'branch_deleted') {
    await reconcileDeletedBranch(deps, event, data);
    return;
  }
  if (data.kind === 'proposal_branch_pushed') {
    await reconcileBranchPush(deps, data);
    return;
  }
  if (data.kind === 'restore_abandoned') {
    await reconcileAbandonedRestore(deps, data, signal);
    return;
  }
  const { proposalId, pullNumber } = data;
  if (proposalId === null || pullNumber === null) return;
  if (data.kind === 'merged_after_decision') {
    await restoreAfterUncountedMerge(deps, { ...data, proposalId, pullNumber }, signal);
    return;
  }
  await deps.github.ensureComment({
    number: pullNumber,
    marker: `<!-- cogitave:reopened=${proposalId}:${event.id} -->`,
    body: data.reason,
  });
  await deps.github.closePullRequest(pullNumber);
  deps.logger.info(
    { requestId: data.requestId, proposalId, pull: pullNumber },
    'reopened pull request of an ended proposal: commented and closed again',
  );
};
