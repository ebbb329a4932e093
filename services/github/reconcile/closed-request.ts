import type { RecordedEvent } from '../../event-store/types.js';
import { proposalBranch } from '../markers.js';
import { foldRequestStream } from '../render.js';
import type { ReconcileDeps } from './deps.js';

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
