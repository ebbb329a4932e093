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
  /** Ends a pending proposal whose branch is gone (the reactor's command, id from the event). */
  readonly rejectProposal: (
    input: { requestId: string; proposalId: string; reason: string },
    event: RecordedEvent,
  ) => Promise<void>;
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

/** Marker of a restore pull request opened because the file changed on the base branch. */
export const fileChangedMarker = (requestId: string, commit: string): string =>
  `<!-- cogitave:file-changed=${requestId}:${commit} -->`;

export const fileRestoreBranch = (requestId: string, commit: string): string =>
  `${BRANCH_PREFIX}restore-${requestId}-${commit.slice(0, 12)}`;

/** Files the repository may hold without disagreeing: the recorded one, or a pending proposal's. */
const agreeingFiles = (stream: readonly RecordedEvent[]): Set<string> => {
  const agreeing = new Set<string>();
  const recorded = renderRecordedRequestFile(stream);
  if (recorded !== undefined) agreeing.add(recorded);
  const view = foldRequestStream(stream);
  for (const proposal of view?.proposals ?? []) {
    if (proposal.outcome !== 'pending') continue;
    const then = foldRequestStream(stream, BigInt(proposal.revision));
    if (then) agreeing.add(renderRequestFile(then, proposal));
  }
  return agreeing;
};

/**
 * A push changed `requests/<id>.md` on the base branch. When the file now says something the
 * log does not (edited or deleted by hand), a pull request puts the recorded file back.
 */
const reconcileFileChange = async (
  deps: ReconcileDeps,
  data: RepositoryDivergedData,
  signal: AbortSignal,
): Promise<void> => {
  const { requestId, by } = data;
  const commit = data.mergeCommitSha ?? 'unknown';
  const path = requestFilePath(requestId);
  const stream = await deps.readStream(requestStreamId(requestId));
  const content = renderRecordedRequestFile(stream);
  if (content === undefined) return;
  const current = await deps.github.readBaseFile(path);
  if (current !== undefined && agreeingFiles(stream).has(current)) {
    deps.logger.debug({ requestId, commit }, 'request file on the base branch agrees with the log');
    return;
  }
  const what = current === undefined ? 'deleted' : 'edited';
  const restore = await deps.github.ensureProposalPullRequest(
    {
      branch: fileRestoreBranch(requestId, commit),
      path,
      content,
      commitMessage: `${requestId}: restore ${path} (${what} outside a proposal in ${commit.slice(0, 12)})`,
      title: `[${requestId}] restore ${path}: ${what} outside a proposal`,
      body: [
        fileChangedMarker(requestId, commit),
        `A push by @${by} (${commit}) ${what} \`${path}\` on the base branch outside any proposal, so the file no longer says what the log records.`,
        '',
        'Merging this pull request puts the file back to the recorded state. It changes no stage and needs no second maintainer; a stage change is proposed through Cogitave, not by editing the file.',
      ].join('\n'),
      draft: false,
    },
    signal,
  );
  deps.logger.warn(
    { requestId, commit, by, restore: restore.number },
    `request file ${what} outside a proposal: restore pull request opened`,
  );
};

/**
 * A proposal branch was deleted. A merged pull request is decided by its merge; otherwise a
 * pending proposal can no longer be merged, so it ends here rather than waiting forever.
 */
const reconcileDeletedBranch = async (
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
  if (proposal?.outcome === 'pending') {
    await deps.rejectProposal(
      {
        requestId,
        proposalId,
        reason: `branch ${branch} was deleted by ${by}${pull ? ` (pull request #${pull.number} not merged)` : ''}: the proposal can no longer be merged`,
      },
      event,
    );
  }
  if (pull) {
    await deps.github.ensureComment({
      number: pull.number,
      marker: `<!-- cogitave:branch-deleted=${proposalId} -->`,
      body: `The branch of this pull request was deleted by @${by}, so \`${proposalId}\` has ended (recorded in the log). The change can be proposed again.`,
    });
    if (pull.state === 'open') await deps.github.closePullRequest(pull.number);
  }
  deps.logger.info(
    { requestId, proposalId, pull: pull?.number, ended: proposal?.outcome === 'pending' },
    'proposal branch deleted: proposal ended',
  );
};

/** `RepositoryDiverged`: the repository and the log disagree (see divergence.ts). */
export const reconcileDivergence = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const data = (event as RecordedEvent<string, RepositoryDivergedData>).data;
  if (data.kind === 'file_changed') {
    await reconcileFileChange(deps, data, signal);
    return;
  }
  if (data.kind === 'branch_deleted') {
    await reconcileDeletedBranch(deps, event, data);
    return;
  }
  const { proposalId, pullNumber } = data;
  if (proposalId === null || pullNumber === null) return;
  if (data.kind === 'merged_after_decision') {
    await restoreRequestFile(
      deps,
      requestStreamId(data.requestId),
      { ...data, proposalId, pullNumber },
      signal,
    );
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
