import type { RecordedEvent } from '../../event-store/types.js';
import { divergenceStreamId, type RepositoryDivergedData } from '../../governance/divergence.js';
import type { StageAdvanceRejected } from '../../requests/events.js';
import { BRANCH_PREFIX, requestFilePath } from '../markers.js';
import type { PullRef } from '../operations.js';
import { checkBaseFile, fileRestoreBranch } from './base-file.js';
import type { ReconcileDeps } from './deps.js';

/**
 * A merge that approved nothing (its merger may not approve it, or its proposal or request had
 * ended): a comment on the merged pull request and one pull request restoring the request file.
 */
export const restoreBranch = (proposalId: string): string =>
  `${BRANCH_PREFIX}restore-${proposalId}`;

export const notCountedMarker = (proposalId: string): string =>
  `<!-- cogitave:not-counted=${proposalId} -->`;

/** A merge that approved nothing: not counted, or after its proposal or request had ended. */
export interface UncountedMerge {
  readonly requestId: string;
  readonly proposalId: string;
  readonly pullNumber: number;
  readonly by: string;
  /** Why the merge does not count, as recorded. */
  readonly reason: string;
  readonly mergeCommitSha: string | null;
}

/** The restore of an uncounted merge: found under either name, else the name to open. */
const uncountedRestore = async (
  deps: ReconcileDeps,
  merge: UncountedMerge,
): Promise<{ branch: string; pull: PullRef | undefined }> => {
  const legacy = restoreBranch(merge.proposalId);
  if (merge.mergeCommitSha === null) {
    return { branch: legacy, pull: await deps.github.findPullRequest(legacy) };
  }
  const branch = fileRestoreBranch(merge.requestId, merge.mergeCommitSha);
  const pull =
    (await deps.github.findPullRequest(branch)) ?? (await deps.github.findPullRequest(legacy));
  return pull === undefined ? { branch, pull } : { branch: legacy, pull };
};

/** Comment on the merged pull request and open the one restoring the request file (both once). */
export const restoreAfterUncountedMerge = async (
  deps: ReconcileDeps,
  merge: UncountedMerge,
  signal: AbortSignal,
): Promise<void> => {
  const { requestId, proposalId, pullNumber, by, reason } = merge;
  const path = requestFilePath(requestId);
  const found = await uncountedRestore(deps, merge);
  let restore = found.pull;
  if (restore === undefined) {
    // Nothing opened yet: only a file that is not the recorded one gets a restore. The pending
    // proposal's file is no exception here: this merge, which approved nothing, put it there.
    const file = await checkBaseFile(deps, requestId);
    if (file.kind === 'disagrees' || (file.kind === 'agrees' && file.as === 'pending')) {
      restore = await deps.github.ensureProposalPullRequest(
        {
          branch: found.branch,
          path,
          content: file.content,
          commitMessage: `${requestId}: restore ${path} (the merge of #${pullNumber} did not count)`,
          title: `[${requestId}] restore ${path}: the merge of #${pullNumber} did not count`,
          body: [
            notCountedMarker(proposalId),
            `#${pullNumber} was merged by @${by}, but that merge does not count as an approval, so \`${path}\` on the base branch no longer says what the log records.`,
            '',
            reason,
            '',
            'Merging this pull request puts the file back to the recorded state. It changes no stage and needs no second maintainer.',
          ].join('\n'),
          draft: false,
        },
        signal,
      );
    }
  }
  await deps.github.ensureComment({
    number: pullNumber,
    marker: notCountedMarker(proposalId),
    body: [
      `This merge by @${by} does not count as an approval of \`${proposalId}\`.`,
      '',
      reason,
      '',
      `The proposal has ended (recorded in the log). ${
        restore === undefined
          ? `\`${path}\` on the base branch already says what the log records, so nothing needs restoring;`
          : `#${restore.number} restores \`${path}\`;`
      } the change can be proposed again for another maintainer to merge.`,
    ].join('\n'),
  });
  deps.logger.info(
    { requestId, proposalId, pull: pullNumber, restore: restore?.number },
    restore === undefined
      ? 'merge that did not count: commented; the request file agrees with the log'
      : 'merge that did not count: commented and restore pull request opened',
  );
};

/** `StageAdvanceRejected` because a merge did not count. */
export const reconcileUncountedMerge = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const data = (event as RecordedEvent<string, StageAdvanceRejected['data']>).data;
  const notCounted = data.mergeNotCounted;
  if (!notCounted) return;
  await restoreAfterUncountedMerge(
    deps,
    {
      ...data,
      pullNumber: notCounted.pullNumber,
      by: notCounted.mergedBy,
      mergeCommitSha: notCounted.mergeCommitSha,
    },
    signal,
  );
};

/**
 * The uncounted merge, recorded in the log, whose commit `commit` is: a push of the base branch
 * that is such a merge is answered by that merge's restore (the same branch, its explanation).
 */
export const recordedUncountedMerge = async (
  deps: ReconcileDeps,
  stream: readonly RecordedEvent[],
  requestId: string,
  commit: string,
): Promise<UncountedMerge | undefined> => {
  for (const event of stream) {
    if (event.type !== 'StageAdvanceRejected') continue;
    const data = (event as RecordedEvent<string, StageAdvanceRejected['data']>).data;
    const notCounted = data.mergeNotCounted;
    if (notCounted?.mergeCommitSha === commit) {
      return {
        ...data,
        pullNumber: notCounted.pullNumber,
        by: notCounted.mergedBy,
        mergeCommitSha: commit,
      };
    }
  }
  for (const event of await deps.readStream(divergenceStreamId(requestId))) {
    const data = event.data as RepositoryDivergedData;
    if (
      data.kind === 'merged_after_decision' &&
      data.mergeCommitSha === commit &&
      data.proposalId !== null &&
      data.pullNumber !== null
    ) {
      return {
        ...data,
        proposalId: data.proposalId,
        pullNumber: data.pullNumber,
        mergeCommitSha: commit,
      };
    }
  }
  return undefined;
};
