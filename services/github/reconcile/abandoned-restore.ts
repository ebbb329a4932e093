import type { RepositoryDivergedData } from '../../governance/divergence.js';
import { CogitaveError } from '../../runtime/errors.js';
import { restoreAttemptBranch, restoreBranchOf } from '../markers.js';
import { foldRequestStream } from '../render.js';
import { checkBaseFile } from './base-file.js';
import type { ReconcileDeps } from './deps.js';

/** Restore pull requests of one disagreement, the first included, before an operator decides. */
export const MAX_RESTORE_ATTEMPTS = 3;

/**
 * A restore pull request was closed unmerged or its branch deleted. Merged (the delete after a
 * merge), or the file agreeing with the log again (put back by hand), it has ended; otherwise
 * the next restore `…-r<n>` is opened, its name derived from the abandoned one so handling the
 * event again (or both the close and the delete of one branch) opens one. After
 * `MAX_RESTORE_ATTEMPTS` the reactor stops reopening: it comments on the intake issue and fails
 * the event, which lists it in the reactor's status, `/readyz` and its failures metric for an
 * operator to decide.
 */
export const reconcileAbandonedRestore = async (
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
