import type { RecordedEvent } from '../../event-store/types.js';
import { requestStreamId, type StageAdvanceApproved } from '../../requests/events.js';
import { findProposal } from '../../requests/fold.js';
import { proposalBranch } from '../markers.js';
import { foldRequestStream } from '../render.js';
import {
  checkBaseFile,
  fileChangedMarker,
  fileRestoreBranch,
  pendingProposal,
} from './base-file.js';
import type { ReconcileDeps } from './deps.js';
import { recordedUncountedMerge, restoreAfterUncountedMerge } from './uncounted-merge.js';

interface FileCheck {
  readonly requestId: string;
  readonly by: string;
  /** The commit that changed the file: names the restore branch, so each is opened once. */
  readonly commit: string;
  /** Set when the check follows a counted merge, not a push seen on the base branch. */
  readonly mergedPull?: number;
}

/**
 * The request file on the base branch, held to the log: after a push changed it, and after a
 * merge counted (whichever is delivered first). When the file says something the log does not
 * (edited or deleted by hand, or commits pushed onto a proposal branch came with its merge), a
 * pull request puts the recorded file back; a push that is a merge the log recorded as not
 * counting gets that merge's restore (one per divergence). While the pending proposal's pull
 * request is merged on GitHub but its decision not yet recorded, the push waits for that
 * decision, which checks again (the restore must carry the file of the stage the merge decides),
 * and the merge is handed to `awaitDecision`: a decision whose delivery never comes is reported,
 * not waited on in silence.
 */
export const reconcileFileChange = async (
  deps: ReconcileDeps,
  check: FileCheck,
  signal: AbortSignal,
): Promise<void> => {
  const { requestId, by, commit, mergedPull } = check;
  const file = await checkBaseFile(deps, requestId);
  if (file.kind === 'unrecorded') return;
  if (file.kind === 'agrees' && file.as === 'recorded') {
    deps.logger.debug({ requestId, commit }, 'request file on the base branch agrees with the log');
    return;
  }
  if (mergedPull === undefined) {
    const stream =
      file.kind === 'disagrees' ? file.stream : await deps.readStream(requestStreamId(requestId));
    // A merge the log recorded as approving nothing: its restore (the same branch) answers it.
    const merge = await recordedUncountedMerge(deps, stream, requestId, commit);
    if (merge) {
      await restoreAfterUncountedMerge(deps, merge, signal);
      return;
    }
    const pending = pendingProposal(stream);
    const pull = pending && (await deps.github.findPullRequest(proposalBranch(pending.proposalId)));
    if (pending && pull?.merged) {
      // Its decision (a counted merge, or one that does not count) checks the file again.
      await deps.awaitDecision({
        requestId,
        proposalId: pending.proposalId,
        pullNumber: pull.number,
        commit,
      });
      deps.logger.warn(
        { requestId, commit, proposalId: pending.proposalId, pull: pull.number },
        'request file changed by a merge not yet decided: checked again once it is',
      );
      return;
    }
  }
  if (file.kind !== 'disagrees') return;
  const { path, content, current } = file;
  const what = current === undefined ? 'deleted' : 'edited';
  const cause =
    mergedPull === undefined
      ? `A push by @${by} (${commit}) ${what} \`${path}\` on the base branch outside any proposal`
      : `The merge${mergedPull > 0 ? ` of #${mergedPull}` : ''} by @${by} (${commit}) ${what} \`${path}\` on the base branch beyond what the proposal records (commits pushed onto its branch)`;
  const restore = await deps.github.ensureProposalPullRequest(
    {
      branch: fileRestoreBranch(requestId, commit),
      path,
      content,
      commitMessage: `${requestId}: restore ${path} (${what} outside a proposal in ${commit.slice(0, 12)})`,
      title: `[${requestId}] restore ${path}: ${what} outside a proposal`,
      body: [
        fileChangedMarker(requestId, commit),
        `${cause}, so the file no longer says what the log records.`,
        '',
        'Merging this pull request puts the file back to the recorded state. It changes no stage and needs no second maintainer; a stage change is proposed through Cogitave, not by editing the file.',
      ].join('\n'),
      draft: false,
    },
    signal,
  );
  deps.logger.warn(
    { requestId, commit, by, restore: restore.number, mergedPull },
    `request file ${what} outside a proposal: restore pull request opened`,
  );
};

/** `StageAdvanceApproved` by a merge: the merged request file must be the recorded one. */
export const reconcileCountedMerge = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const { requestId, proposalId, approvedBy, via, mergeCommitSha } = (
    event as RecordedEvent<string, StageAdvanceApproved['data']>
  ).data;
  if (via !== 'github' || mergeCommitSha === null) return;
  const view = foldRequestStream(await deps.readStream(event.streamId));
  const pullNumber = (view && findProposal(view, proposalId))?.pullRequest?.pullNumber;
  await reconcileFileChange(
    deps,
    {
      requestId,
      by: approvedBy.replace(/^github:/, ''),
      commit: mergeCommitSha,
      mergedPull: pullNumber ?? 0,
    },
    signal,
  );
};
