import type { CommandMetadata } from '../../commands/metadata.js';
import type { EventStore, RecordedEvent } from '../../event-store/types.js';
import type { RequestCommandHandlers } from '../../requests/commands.js';
import type { RequestProposed, StageAdvanceProposed } from '../../requests/events.js';
import { findProposal } from '../../requests/fold.js';
import type { Logger } from '../../runtime/logger.js';
import { proposalBranch, requestFilePath } from '../markers.js';
import type { GitHubOperations } from '../operations.js';
import {
  foldRequestStream,
  intakeIssueTitle,
  isAbandoned,
  proposalPullTitle,
  renderIntakeIssueBody,
  renderProposalPullBody,
  renderRequestFile,
} from '../render.js';
import { PermanentReactorError, classify, describeError } from './errors.js';

/**
 * Proposals made GitHub objects: `RequestProposed` → an intake issue → `recordIntakeIssue`;
 * `StageAdvanceProposed` → a branch, a commit of the request file and a draft pull request →
 * `recordProposalPullRequest`. A request or proposal decided before the reactor got to it gets
 * nothing opened; one that exists already is recorded.
 */
export interface ProposalsContext {
  readonly eventStore: EventStore;
  readonly github: GitHubOperations;
  readonly handlers: RequestCommandHandlers;
  readonly logger: Logger;
  /** The metadata of the reactor's command `command` caused by `event`. */
  readonly meta: (event: RecordedEvent, command: string) => CommandMetadata;
}

export const onRequestProposed = async (
  ctx: ProposalsContext,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const { eventStore, github, handlers, logger } = ctx;
  const { repository } = github;
  const { requestId } = (event as RecordedEvent<string, RequestProposed['data']>).data;
  const view = foldRequestStream(await eventStore.readStream(event.streamId));
  if (!view) throw new PermanentReactorError(`stream ${event.streamId} has no RequestProposed`);
  if (view.intakeIssue) return; // recorded already: a replay from an older checkpoint
  const record = async (issue: { number: number; url: string }): Promise<void> => {
    try {
      await handlers.recordIntakeIssue(
        { requestId, repository, issueNumber: issue.number, issueUrl: issue.url },
        ctx.meta(event, 'recordIntakeIssue'),
      );
    } catch (error) {
      // Rejected (issue closed as not planned, applied by webhook) or withdrawn before we
      // recorded the issue: the decision stands and the refusal is expected.
      if (classify(error) !== 'permanent') throw error;
      const after = foldRequestStream(await eventStore.readStream(event.streamId));
      if (after && !isAbandoned(after)) throw error;
      logger.info(
        { requestId, issue: issue.number, reason: describeError(error) },
        'request closed before its intake issue was recorded',
      );
    }
  };
  if (isAbandoned(view)) {
    // Closed before we got here: record an issue that exists, never open one now.
    const found = await github.findIntakeIssue(requestId);
    if (found) await record(found);
    else logger.info({ requestId }, 'request no longer active; no intake issue opened');
    return;
  }
  const issue = await github.ensureIntakeIssue(
    { requestId, title: intakeIssueTitle(view), body: renderIntakeIssueBody(view) },
    signal,
  );
  logger.info(
    { requestId, issue: issue.number, created: issue.created, position: event.position },
    issue.created ? 'intake issue opened' : 'intake issue found',
  );
  await record(issue);
};

/** Records the proposal's pull request; a refusal because it was decided meanwhile is expected. */
const recordPullRequest = async (
  ctx: ProposalsContext,
  event: RecordedEvent,
  proposal: StageAdvanceProposed['data'],
  pull: { number: number; url: string; headSha: string },
): Promise<void> => {
  const { requestId, proposalId } = proposal;
  try {
    await ctx.handlers.recordProposalPullRequest(
      {
        requestId,
        proposalId,
        repository: ctx.github.repository,
        branch: proposalBranch(proposalId),
        pullNumber: pull.number,
        pullUrl: pull.url,
        // Kept so a push to the branch by anyone else is told apart from this commit.
        headSha: pull.headSha,
      },
      ctx.meta(event, 'recordProposalPullRequest'),
    );
  } catch (error) {
    // A merge or close can be applied (by webhook, resolved by branch name) before we get
    // to record the pull request; the decision stands and the refusal is expected.
    if (classify(error) !== 'permanent') throw error;
    const after = foldRequestStream(await ctx.eventStore.readStream(event.streamId));
    const decided = (after && findProposal(after, proposalId))?.outcome !== 'pending';
    if (!decided && after && !isAbandoned(after)) throw error;
    ctx.logger.info(
      { requestId, proposalId, pull: pull.number, reason: describeError(error) },
      'proposal decided before its pull request was recorded',
    );
  }
};

export const onStageAdvanceProposed = async (
  ctx: ProposalsContext,
  event: RecordedEvent,
  signal: AbortSignal,
): Promise<void> => {
  const { eventStore, github, logger } = ctx;
  const proposal = (event as RecordedEvent<string, StageAdvanceProposed['data']>).data;
  const { requestId, proposalId } = proposal;
  const stream = await eventStore.readStream(event.streamId);
  const now = foldRequestStream(stream);
  const then = foldRequestStream(stream, event.revision);
  const known = now && findProposal(now, proposalId);
  if (!now || !then || !known) {
    throw new PermanentReactorError(`proposal ${proposalId} is not in ${event.streamId}`);
  }
  if (known.pullRequest) return; // recorded already
  const branch = proposalBranch(proposalId);
  if (known.outcome !== 'pending' || isAbandoned(now)) {
    // Decided (or the request ended) before we got here: record a pull request that exists
    // (a merge can arrive before we recorded it), never open one now.
    const pull = await github.findPullRequest(branch);
    if (pull) await recordPullRequest(ctx, event, proposal, pull);
    else
      logger.info({ requestId, proposalId }, 'proposal no longer pending; no pull request opened');
    return;
  }
  const issueNumber = now.intakeIssue?.number ?? (await github.findIntakeIssue(requestId))?.number;
  const pull = await github.ensureProposalPullRequest(
    {
      branch,
      path: requestFilePath(requestId),
      content: renderRequestFile(then, proposal),
      commitMessage: `${requestId}: propose ${proposal.fromStage} → ${proposal.toStage} (${proposalId})`,
      title: proposalPullTitle(then, proposal),
      body: renderProposalPullBody(then, proposal, issueNumber),
    },
    signal,
  );
  logger.info(
    { requestId, proposalId, pull: pull.number, created: pull.created, position: event.position },
    pull.created ? 'proposal pull request opened' : 'proposal pull request found',
  );
  await recordPullRequest(ctx, event, proposal, pull);
};
