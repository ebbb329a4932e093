import type { RecordedEvent } from '../event-store/types.js';
import { divergenceStreamId, type RepositoryDivergedData } from '../governance/divergence.js';
import {
  requestStreamId,
  type StageAdvanceApproved,
  type StageAdvanceRejected,
} from '../requests/events.js';
import { findProposal, type ProposalRecord } from '../requests/fold.js';
import { CogitaveError } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';
import {
  BRANCH_PREFIX,
  proposalBranch,
  requestFilePath,
  restoreAttemptBranch,
  restoreBranchOf,
} from './markers.js';
import type { GitHubOperations, PullRef } from './operations.js';
import { foldRequestStream, renderRequestFile } from './render.js';

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

/** A merge that approved nothing: not counted, or after its proposal or request had ended. */
interface UncountedMerge {
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
const restoreAfterUncountedMerge = async (
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
const recordedUncountedMerge = async (
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

/** Marker of a restore pull request opened because the file changed on the base branch. */
export const fileChangedMarker = (requestId: string, commit: string): string =>
  `<!-- cogitave:file-changed=${requestId}:${commit} -->`;

export const fileRestoreBranch = (requestId: string, commit: string): string =>
  `${BRANCH_PREFIX}restore-${requestId}-${commit.slice(0, 12)}`;

/**
 * The proposal waiting for a decision: the only one whose file the base branch may hold besides
 * the recorded one (its merge is being decided). A request that has closed has none, even when a
 * proposal of it was never decided: it ended with the request.
 */
const pendingProposal = (stream: readonly RecordedEvent[]): ProposalRecord | undefined => {
  const view = foldRequestStream(stream);
  return view?.pendingProposalId ? findProposal(view, view.pendingProposalId) : undefined;
};

type BaseFileCheck =
  /** The request has no recorded file yet: nothing to hold the repository to. */
  | { readonly kind: 'unrecorded' }
  /**
   * `pending`: the file is the one the pending proposal proposes, not the recorded one (`content`,
   * which a restore would put back).
   */
  | { readonly kind: 'agrees'; readonly as: 'recorded' | 'pending'; readonly content: string }
  | {
      readonly kind: 'disagrees';
      readonly path: string;
      readonly stream: readonly RecordedEvent[];
      /** The recorded file, which a restore puts back. */
      readonly content: string;
      /** What the base branch holds; undefined when the file was deleted. */
      readonly current: string | undefined;
    };

/** The request file on the base branch, held to the log. */
const checkBaseFile = async (deps: ReconcileDeps, requestId: string): Promise<BaseFileCheck> => {
  const path = requestFilePath(requestId);
  const stream = await deps.readStream(requestStreamId(requestId));
  const content = renderRecordedRequestFile(stream);
  if (content === undefined) return { kind: 'unrecorded' };
  const current = await deps.github.readBaseFile(path);
  if (current === content) return { kind: 'agrees', as: 'recorded', content };
  const pending = pendingProposal(stream);
  if (current !== undefined && pending) {
    const then = foldRequestStream(stream, BigInt(pending.revision));
    if (then && renderRequestFile(then, pending) === current)
      return { kind: 'agrees', as: 'pending', content };
  }
  return { kind: 'disagrees', path, stream, content, current };
};

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
const reconcileFileChange = async (
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

export const requestClosedMarker = (proposalId: string): string =>
  `<!-- cogitave:request-closed=${proposalId} -->`;

export const intakeClosedMarker = (requestId: string): string =>
  `<!-- cogitave:intake-closed=${requestId} -->`;

/**
 * The request closed (its intake rejected, or it was withdrawn) while a proposal of it waited:
 * the proposal ended with it. The log records that (`StageAdvanceRejected`, so nothing shows it
 * pending), and its pull request, still open on GitHub where a maintainer could merge it, is
 * closed with a word why. One merged meanwhile approves nothing: its delivery records that and
 * the request file is restored like after any merge that did not count. The intake issue, still
 * open when the request was withdrawn or its intake rejected locally, is closed too.
 */
export const reconcileClosedRequest = async (
  deps: ReconcileDeps,
  event: RecordedEvent,
): Promise<void> => {
  const view = foldRequestStream(await deps.readStream(event.streamId));
  if (view?.status !== 'closed') return;
  for (const proposal of view.proposals) {
    if (proposal.outcome !== 'pending') continue;
    const { proposalId } = proposal;
    const reason = `request ${view.requestId} was ${view.stage}${view.closedReason === null ? '' : ` (${view.closedReason})`}, so proposal ${proposalId} ended with it`;
    await deps.rejectProposal({ requestId: view.requestId, proposalId, reason }, event);
    const pull = await deps.github.findPullRequest(proposalBranch(proposalId));
    if (pull?.state !== 'open') continue;
    await deps.github.ensureComment({
      number: pull.number,
      marker: requestClosedMarker(proposalId),
      body: `Request \`${view.requestId}\` is ${view.stage}, so \`${proposalId}\` has ended with it (recorded in the log) and this pull request is closed: merging it would approve nothing.`,
    });
    await deps.github.closePullRequest(pull.number);
    deps.logger.info(
      { requestId: view.requestId, proposalId, pull: pull.number, stage: view.stage },
      'request closed: the pull request of its pending proposal closed',
    );
  }
  // The intake issue closes with its request (one closed on GitHub is left as it is).
  const issue = view.intakeIssue;
  if (issue === null) return;
  const why = view.closedReason === null ? '' : ` (${view.closedReason})`;
  const closed = await deps.github.closeIssueNotPlanned({
    number: issue.number,
    marker: intakeClosedMarker(view.requestId),
    body: `Request \`${view.requestId}\` is ${view.stage}${why} (recorded in the log), so its intake issue is closed.`,
  });
  if (closed) {
    deps.logger.info(
      { requestId: view.requestId, issue: issue.number, stage: view.stage },
      'request closed: its intake issue closed',
    );
  }
};

/** Restore pull requests of one disagreement, the first included, before an operator decides. */
export const MAX_RESTORE_ATTEMPTS = 3;

export const branchPushedMarker = (proposalId: string, head: string): string =>
  `<!-- cogitave:branch-pushed=${proposalId}:${head} -->`;

/**
 * Someone pushed to a pending proposal's branch. Nothing is undone on the branch (see the
 * README: resetting it would race the pusher and a merge, and destroy their work); the pull
 * request says that a merge applies only the recorded proposal, and the merged request file is
 * held to the log by the `file_changed` path. A branch that is (again) the reactor's commit, a
 * decided proposal or a deleted branch needs no word.
 */
const reconcileBranchPush = async (
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

/**
 * A restore pull request was closed unmerged or its branch deleted. Merged (the delete after a
 * merge), or the file agreeing with the log again (put back by hand), it has ended; otherwise
 * the next restore `…-r<n>` is opened, its name derived from the abandoned one so handling the
 * event again (or both the close and the delete of one branch) opens one. After
 * `MAX_RESTORE_ATTEMPTS` the reactor stops reopening: it comments on the intake issue and fails
 * the event, which lists it in the reactor's status, `/readyz` and its failures metric for an
 * operator to decide.
 */
const reconcileAbandonedRestore = async (
  deps: ReconcileDeps,
  data: RepositoryDivergedData,
  signal: AbortSignal,
): Promise<void> => {
  const { requestId, by } = data;
  const restore = data.branch === undefined ? undefined : restoreBranchOf(data.branch);
  if (data.branch === undefined || restore === undefined) return;
  const abandoned = await deps.github.findPullRequest(data.branch);
  if (abandoned?.merged) {
    deps.logger.info({ requestId, branch: data.branch }, 'restore merged: the file is back');
    return;
  }
  const file = await checkBaseFile(deps, requestId);
  if (file.kind === 'agrees') {
    deps.logger.info(
      { requestId, branch: data.branch },
      'restore abandoned, but the request file agrees with the log again',
    );
  }
  if (file.kind !== 'disagrees') return;
  const { path, stream, content } = file;
  const next = restore.attempt + 1;
  const what = abandoned
    ? `#${abandoned.number} was closed without merging`
    : `${data.branch} was deleted`;
  if (next > MAX_RESTORE_ATTEMPTS) {
    const issue = foldRequestStream(stream)?.intakeIssue?.number;
    const message = `${path} still disagrees with the log after ${MAX_RESTORE_ATTEMPTS} restore pull requests (the last: ${what}, by ${by}); an operator must decide`;
    if (issue !== undefined) {
      await deps.github.ensureComment({
        number: issue,
        marker: `<!-- cogitave:restore-exhausted=${restore.first} -->`,
        body: `\`${path}\` on the base branch still says something the log does not record: ${MAX_RESTORE_ATTEMPTS} pull requests restoring it were closed or deleted unmerged (the last by @${by}). Cogitave opens no more; a maintainer must put the file back or decide otherwise.`,
      });
    }
    deps.logger.error({ requestId, branch: data.branch, by }, message);
    throw new CogitaveError('FAILED_PRECONDITION', message, { requestId, branch: data.branch });
  }
  const branch = restoreAttemptBranch(restore.first, next);
  const pull = await deps.github.ensureProposalPullRequest(
    {
      branch,
      path,
      content,
      commitMessage: `${requestId}: restore ${path} (restore ${next} of ${MAX_RESTORE_ATTEMPTS})`,
      title: `[${requestId}] restore ${path} (restore ${next} of ${MAX_RESTORE_ATTEMPTS})`,
      body: [
        `<!-- cogitave:restore=${restore.first}:${next} -->`,
        `\`${path}\` on the base branch still says something the log does not record. An earlier restore (${data.branch}) ${what} by @${by}, so this one puts the file back instead.`,
        '',
        `Merging it changes no stage and needs no second maintainer. Cogitave opens at most ${MAX_RESTORE_ATTEMPTS} restores; after that an operator must decide.`,
      ].join('\n'),
      draft: false,
    },
    signal,
  );
  if (abandoned) {
    await deps.github.ensureComment({
      number: abandoned.number,
      marker: `<!-- cogitave:restore-next=${branch} -->`,
      body: `The request file still disagrees with the log; #${pull.number} restores it instead.`,
    });
  }
  deps.logger.warn(
    { requestId, abandoned: data.branch, restore: pull.number, attempt: next, by },
    'restore pull request abandoned: the next one opened',
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
