import type { RecordedEvent } from '../../event-store/types.js';
import type { RepositoryDivergedData } from '../../governance/divergence.js';
import { requestStreamId } from '../../requests/events.js';
import { findProposal } from '../../requests/fold.js';
import { BRANCH_PREFIX, proposalBranch, requestFilePath } from '../markers.js';
import { foldRequestStream } from '../render.js';
import type { ReconcileDeps } from './deps.js';

/**
 * A proposal branch was deleted. A merged pull request is decided by its merge; otherwise a
 * pending proposal can no longer be merged, so it ends here rather than waiting forever.
 */
export const reconcileDeletedBranch = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
  data: RepositoryDivergedData,
): Promise<void> => {
  const { requestId, proposalId, by } = data;
  if (proposalId === null) return;
  const branch = `${BRANCH_PREFIX}${proposalId}`;
  const pull = await deps.github.findPullRequest(branch);
  if (pull?.merged) return;
  const view = foldRequestStream(await deps.readStream(requestStreamId(requestId)));
  const proposal = view?.proposals.find((candidate) => candidate.proposalId === proposalId);
  const ends = proposal?.outcome === 'pending';
  if (ends) {
    await deps.rejectProposal(
      {
        requestId,
        proposalId,
        reason: `branch ${branch} was deleted by ${by}${pull ? ` (pull request #${pull.number} not merged)` : ''}: the proposal can no longer be merged`,
      },
      event,
    );
  }
  // A proposal decided before (its pull request closed with the decision, the branch deleted
  // after, as GitHub does for closed pull requests when asked to) needs no word.
  if (pull && (ends || pull.state === 'open')) {
    await deps.github.ensureComment({
      number: pull.number,
      marker: `<!-- cogitave:branch-deleted=${proposalId} -->`,
      body: `The branch of this pull request was deleted by @${by}, so \`${proposalId}\` has ended (recorded in the log). The change can be proposed again.`,
    });
    if (pull.state === 'open') await deps.github.closePullRequest(pull.number);
  }
  deps.logger.info(
    { requestId, proposalId, pull: pull?.number, ended: ends },
    'proposal branch deleted: proposal ended',
  );
};

export const branchPushedMarker = (proposalId: string, head: string): string =>
  `<!-- cogitave:branch-pushed=${proposalId}:${head} -->`;

/**
 * Someone pushed to a pending proposal's branch. Nothing is undone on the branch (see the
 * README: resetting it would race the pusher and a merge, and destroy their work); the pull
 * request says that a merge applies only the recorded proposal, and the merged request file is
 * held to the log by the `file_changed` path. A branch that is (again) the reactor's commit, a
 * decided proposal or a deleted branch needs no word.
 */
export const reconcileBranchPush = async (
  deps: ReconcileDeps,
  data: RepositoryDivergedData,
): Promise<void> => {
  const { requestId, proposalId, by } = data;
  const pushed = data.mergeCommitSha;
  if (proposalId === null || pushed === null) return;
  const branch = proposalBranch(proposalId);
  const view = foldRequestStream(await deps.readStream(requestStreamId(requestId)));
  const proposal = view && findProposal(view, proposalId);
  if (proposal?.outcome !== 'pending') {
    deps.logger.debug({ requestId, proposalId }, 'push to the branch of a decided proposal');
    return;
  }
  const ours = proposal.pullRequest?.headSha;
  const head = await deps.github.branchHead(branch);
  // The push was the reactor's own commit (delivered before the reactor recorded it), or the
  // branch has been put back to it since.
  if (head === undefined || (ours !== undefined && (head === ours || pushed === ours))) {
    deps.logger.debug({ requestId, proposalId, head, ours }, 'proposal branch holds no push');
    return;
  }
  const pullNumber =
    proposal.pullRequest?.pullNumber ?? (await deps.github.findPullRequest(branch))?.number;
  if (pullNumber === undefined) return;
  const path = requestFilePath(requestId);
  await deps.github.ensureComment({
    number: pullNumber,
    marker: branchPushedMarker(proposalId, pushed),
    body: [
      `@${by} pushed ${pushed} to \`${branch}\`, so this pull request now holds more than the commit Cogitave made for \`${proposalId}\`${ours === undefined ? '' : ` (${ours})`}.`,
      '',
      `Merging it approves only what the log records for \`${proposalId}\`: ${proposal.fromStage} → ${proposal.toStage}, with \`${path}\` as Cogitave wrote it. Pushed changes to \`${path}\` are not part of the decision: after a merge, a pull request restores the recorded file. Changes to other files are no part of the proposal; review them as any change, or close this pull request and propose again.`,
    ].join('\n'),
  });
  deps.logger.warn(
    { requestId, proposalId, pull: pullNumber, by, head: pushed, ours },
    'push to a proposal branch: commented that a merge applies only the recorded proposal',
  );
};
