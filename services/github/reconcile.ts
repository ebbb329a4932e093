import type { RecordedEvent } from '../event-store/types.js';
import type { RepositoryDivergedData } from '../governance/divergence.js';
import { requestStreamId, type StageAdvanceRejected } from '../requests/events.js';
import type { Logger } from '../runtime/logger.js';
import { BRANCH_PREFIX, requestFilePath } from './markers.js';
import type { GitHubOperations } from './operations.js';
import { foldRequestStream, renderRequestFile } from './render.js';

/**
 * Making the repository agree with the log again after a merge that did not count. The merge
 * put the proposed stage into `requests/<id>.md` on the base branch while the log ended the
 * proposal; the reactor
 *
 * 1. comments on the merged pull request: who merged, why it does not count, what happens now;
 * 2. opens a pull request `cogitave/restore-<proposalId>` that puts the file back to what the
 *    log says (the file of the last approved stage, byte for byte as its own pull request
 *    wrote it; before any approval, a file saying nothing was approved). Merging it needs no
 *    four eyes: it changes no stage, the log already holds the truth. Its branch is not a
 *    proposal branch, so its merge is not a decision.
 *
 * Both steps look up before they create, so handling the event again changes nothing.
 */
export const restoreBranch = (proposalId: string): string =>
  `${BRANCH_PREFIX}restore-${proposalId}`;

export const notCountedMarker = (proposalId: string): string =>
  `<!-- cogitave:not-counted=${proposalId} -->`;

/** The request file as the log has it now. */
export const renderRecordedRequestFile = (stream: readonly RecordedEvent[]): string | undefined => {
  const view = foldRequestStream(stream);
  if (!view) return undefined;
  const approved = view.proposals.filter((proposal) => proposal.outcome === 'approved').at(-1);
  if (approved) {
    const then = foldRequestStream(stream, BigInt(approved.revision));
    if (then) return renderRequestFile(then, approved);
  }
  return [
    '---',
    `id: ${view.requestId}`,
    `stage: ${view.stage}`,
    '---',
    '',
    `# ${view.requestId}`,
    '',
    `**${view.requestId}** is at stage **${view.stage}**: no stage change of it has been approved yet.`,
    '',
  ].join('\n');
};

export interface ReconcileDeps {
  readonly github: GitHubOperations;
  readonly logger: Logger;
  readonly readStream: (streamId: string) => Promise<RecordedEvent[]>;
}

interface Disagreement {
  readonly requestId: string;
  readonly proposalId: string;
  readonly pullNumber: number;
  readonly by: string;
  /** Why the log disagrees, as recorded. */
  readonly reason: string;
}

/** Comment on the pull request and open the one restoring the request file (both once). */
const restoreRequestFile = async (
  deps: ReconcileDeps,
  streamId: string,
  what: Disagreement,
  signal: AbortSignal,
): Promise<void> => {
  const { requestId, proposalId, pullNumber, by, reason } = what;
  const content = renderRecordedRequestFile(await deps.readStream(streamId));
  if (content === undefined) return;
  const path = requestFilePath(requestId);
  const restore = await deps.github.ensureProposalPullRequest(
    {
      branch: restoreBranch(proposalId),
      path,
      content,
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
  await deps.github.ensureComment({
    number: pullNumber,
    marker: notCountedMarker(proposalId),
    body: [
      `This merge by @${by} does not count as an approval of \`${proposalId}\`.`,
      '',
      reason,
      '',
      `The proposal has ended (recorded in the log). #${restore.number} restores \`${path}\`; the change can be proposed again for another maintainer to merge.`,
    ].join('\n'),
  });
  deps.logger.info(
    { requestId, proposalId, pull: pullNumber, restore: restore.number },
    'merge that did not count: commented and restore pull request opened',
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
  await restoreRequestFile(
    deps,
    event.streamId,
    { ...data, pullNumber: notCounted.pullNumber, by: notCounted.mergedBy },
    signal,
  );
};

/** `RepositoryDiverged`: a merge after the proposal ended, or a reopened pull request. */
export const reconcileDivergence = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const data = (event as RecordedEvent<string, RepositoryDivergedData>).data;
  if (data.kind === 'merged_after_decision') {
    await restoreRequestFile(deps, requestStreamId(data.requestId), data, signal);
    return;
  }
  await deps.github.ensureComment({
    number: data.pullNumber,
    marker: `<!-- cogitave:reopened=${data.proposalId}:${event.id} -->`,
    body: data.reason,
  });
  await deps.github.closePullRequest(data.pullNumber);
  deps.logger.info(
    { requestId: data.requestId, proposalId: data.proposalId, pull: data.pullNumber },
    'reopened pull request of an ended proposal: commented and closed again',
  );
};
