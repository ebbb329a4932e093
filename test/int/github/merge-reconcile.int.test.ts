import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RepositoryDivergedData } from '../../../services/governance/divergence.js';
import {
  fileRestoreBranch,
  intakeClosedMarker,
  notCountedMarker,
  renderRecordedRequestFile,
} from '../../../services/github/reconcile.js';
import { foldRequestStream } from '../../../services/github/render.js';
import { findProposal } from '../../../services/requests/fold.js';
import { OWNER, REPO, meta, reactorCaughtUp, requestEvents, waitFor } from './harness.js';
import { PRINCIPALS, webhookWorldForFile } from './webhook-world.js';

/**
 * A merge GitHub made that the log does not take as an approval, seen from every side: the
 * decision delivered and its push to the base branch, in either order, redelivered, delivered
 * twice under two ids, and the reactor handling the log again. One pull request restores the
 * request file per divergence. Also: a request that closes while a proposal of it waits, and a
 * merge whose delivery never arrives. Real payloads of @octokit/webhooks-examples, signed, over
 * HTTP, against the GitHub double.
 */
const { world, h } = webhookWorldForFile('github_merge_reconcile', { principals: PRINCIPALS });

const restoresOf = (requestId: string) =>
  h()
    .double.listPullRequests(OWNER, REPO)
    .filter((pull) => pull.head.ref.startsWith(`cogitave/restore-${requestId}`));

const divergences = async (requestId: string): Promise<RepositoryDivergedData[]> =>
  (await h().eventStore.readStream(`github-divergence-${requestId}`)).map(
    (event) => event.data as RepositoryDivergedData,
  );

const outcomeOf = async (requestId: string, proposalId: string) => {
  const view = foldRequestStream(await requestEvents(h(), requestId));
  return view && findProposal(view, proposalId)?.outcome;
};

/** The push GitHub sends for a merge: the merge commit, changing the request file. */
const mergePush = (requestId: string, sha: string, by: string) =>
  world().pushPayload(sha, by, { modified: [`requests/${requestId}.md`] });

/**
 * `by` merges the pull request; its push is delivered and reconciled first, then the merge itself
 * (answered `not counted` with the reason).
 */
const mergeWithPushFirst = async (requestId: string, pull: number, by: string) => {
  const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: by });
  const sha = String(merge.merge_commit_sha);
  await world().deliver('push', mergePush(requestId, sha, by));
  await world().runReactor();
  const merged = await world().deliver('pull_request', world().pullPayload(pull, by));
  expect(merged.body.status).toBe('not counted');
  return { sha, reason: String(merged.body.reason) };
};

const rerunReactorFromStart = (name: string) => world().rerunReactorFromStart(name);

describe('one restore pull request per divergence', () => {
  it('given a merge that does not count, when its decision and its push are each delivered twice, the decision once more under another delivery id, and the reactor handles the log again, then one pull request restores the file and the merged pull request gets one comment', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      1,
      'token:octocat-agent',
    );
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'octocat' });
    const sha = String(merge.merge_commit_sha);
    const ids = { merge: randomUUID(), push: randomUUID() };

    const decided = await world().deliver('pull_request', world().pullPayload(pull, 'octocat'), {
      id: ids.merge,
    });
    expect(decided.body).toMatchObject({ status: 'not counted', proposalId });
    const pushed = await world().deliver('push', mergePush(requestId, sha, 'octocat'), {
      id: ids.push,
    });
    expect(pushed.body).toMatchObject({ status: 'recorded', kinds: ['file_changed'] });
    await world().runReactor();

    const restores = restoresOf(requestId);
    expect(restores.map((restore) => restore.head.ref)).toEqual([
      fileRestoreBranch(requestId, sha),
    ]);
    const recorded = renderRecordedRequestFile(await requestEvents(h(), requestId));
    expect(h().double.listFiles(OWNER, REPO, fileRestoreBranch(requestId, sha))).toMatchObject({
      [`requests/${requestId}.md`]: recorded,
    });
    expect(restores[0]?.body ?? '').toContain('does not count as an approval');

    // GitHub redelivers both, and a second webhook of the repository delivers the merge again.
    const before = await world().head();
    expect(
      (
        await world().deliver('pull_request', world().pullPayload(pull, 'octocat'), {
          id: ids.merge,
        })
      ).body.status,
    ).toBe('already applied');
    await world().deliver('push', mergePush(requestId, sha, 'octocat'), { id: ids.push });
    expect(await world().head()).toBe(before);
    const again = await world().deliver('pull_request', world().pullPayload(pull, 'octocat'));
    expect(again.body).toMatchObject({ status: 'not counted', proposalId });
    expect(String(again.body.reason)).toContain('does not count as approval');
    // The same merge is not recorded a second time as a merge after the proposal ended.
    expect((await divergences(requestId)).map((d) => d.kind)).toEqual(['file_changed']);

    await world().runReactor();
    expect((await rerunReactorFromStart('github-reactor-rerun-once')).failures).toEqual([]);
    expect(restoresOf(requestId)).toHaveLength(1);
    expect(
      h()
        .double.listComments(OWNER, REPO, pull)
        .filter((comment) => (comment.body ?? '').includes(notCountedMarker(proposalId))),
    ).toHaveLength(1);
    expect(h().double.violations).toEqual([]);
  });

  it('given a merge that does not count, when its push is delivered and reconciled before the merge itself, then the restore waits for the decision and one pull request restores the file', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      2,
      'token:octocat-agent',
    );
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'octocat' });
    const sha = String(merge.merge_commit_sha);

    await world().deliver('push', mergePush(requestId, sha, 'octocat'));
    await world().runReactor();
    expect(restoresOf(requestId)).toEqual([]);

    await world().deliver('pull_request', world().pullPayload(pull, 'octocat'));
    await world().runReactor();
    expect(restoresOf(requestId).map((restore) => restore.head.ref)).toEqual([
      fileRestoreBranch(requestId, sha),
    ]);
    expect(await outcomeOf(requestId, proposalId)).toBe('rejected');
  });

  it('given a rejected proposal whose pull request is reopened and merged, when the merge and its push are delivered, then the merge is recorded once as approving nothing and one pull request restores the file', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      3,
      'token:octocat-agent',
    );
    h().double.closePullRequest(OWNER, REPO, pull, { closedBy: 'grace' });
    await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    h().double.reopenPullRequest(OWNER, REPO, pull, { by: 'grace' });
    // The push first this time: the proposal has ended, so nothing waits for a decision.
    const { sha, reason } = await mergeWithPushFirst(requestId, pull, 'grace');
    expect(reason).toContain(`after proposal ${proposalId} had ended`);
    await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    await world().runReactor();

    expect(restoresOf(requestId).map((restore) => restore.head.ref)).toEqual([
      fileRestoreBranch(requestId, sha),
    ]);
    expect((await divergences(requestId)).map((d) => d.kind)).toEqual([
      'file_changed',
      'merged_after_decision',
    ]);
    expect(h().double.violations).toEqual([]);
  });
});

describe('a request that closes while a proposal of it waits', () => {
  it('given an open intake issue and a proposal pull request, when the request is withdrawn, then the reactor closes both with a word why, once, and the delivery of its own issue close changes nothing', async () => {
    const { requestId, issue, pull } = await world().proposalWithPull(5, 'token:octocat-agent');
    await h().handlers.withdraw(
      { requestId, reason: 'Duplicate of an earlier request.' },
      meta('token:octocat-agent'),
    );
    await world().runReactor();

    const closedIssue = h().double.getIssue(OWNER, REPO, issue);
    expect(closedIssue).toMatchObject({ state: 'closed', state_reason: 'not_planned' });
    const notes = () =>
      h()
        .double.listComments(OWNER, REPO, issue)
        .filter((comment) => (comment.body ?? '').includes(intakeClosedMarker(requestId)));
    expect(notes()).toHaveLength(1);
    expect(notes()[0]?.body).toContain(
      `Request \`${requestId}\` is withdrawn (Duplicate of an earlier request.)`,
    );
    expect(h().double.getPullRequest(OWNER, REPO, pull).state).toBe('closed');

    // GitHub delivers the close the reactor made: the request is closed already.
    const delivered = await world().deliver('issues', world().issueClosedPayload(issue, 'octocat'));
    expect(['applied', 'refused']).toContain(delivered.body.status);
    await world().rerunReactorFromStart('reactor-again-after-withdraw');
    expect(notes()).toHaveLength(1);
    const view = foldRequestStream(await requestEvents(h(), requestId));
    expect(view?.stage).toBe('withdrawn');
    expect((await requestEvents(h(), requestId)).map((e) => e.type)).not.toContain(
      'IntakeRejected',
    );
    expect(h().double.violations).toEqual([]);
  });

  it('given an open proposal pull request, when the intake issue is closed as not planned, then the proposal ends with the request and the reactor closes its pull request; reopened and merged anyway, the merge approves nothing and one pull request restores the file', async () => {
    const { requestId, proposalId, issue, pull } = await world().proposalWithPull(
      4,
      'token:octocat-agent',
    );
    h().double.closeIssue(OWNER, REPO, issue, { closedBy: 'grace', stateReason: 'not_planned' });
    const rejected = await world().deliver('issues', world().issueClosedPayload(issue, 'grace'));
    expect(rejected.body).toMatchObject({ status: 'applied', command: 'rejectIntake' });
    await world().runReactor();

    expect(h().double.getPullRequest(OWNER, REPO, pull).state).toBe('closed');
    expect(
      h()
        .double.listComments(OWNER, REPO, pull)
        .some((comment) => (comment.body ?? '').includes('has ended with it')),
    ).toBe(true);
    expect(await outcomeOf(requestId, proposalId)).toBe('rejected');
    // The close the reactor made is delivered too: the proposal has ended already.
    const closed = await world().deliver('pull_request', world().pullPayload(pull, 'octocat'));
    expect(['applied', 'refused']).toContain(closed.body.status);

    h().double.reopenPullRequest(OWNER, REPO, pull, { by: 'grace' });
    await world().deliver('pull_request', world().pullPayload(pull, 'grace', 'reopened'));
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const merged = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(merged.body).toMatchObject({ status: 'not counted', proposalId });
    await world().deliver('push', mergePush(requestId, String(merge.merge_commit_sha), 'grace'));
    await world().runReactor();

    const view = foldRequestStream(await requestEvents(h(), requestId));
    expect(view?.stage).toBe('rejected');
    const restores = restoresOf(requestId);
    expect(restores).toHaveLength(1);
    expect(
      h().double.listFiles(OWNER, REPO, restores[0]?.head.ref)[`requests/${requestId}.md`],
    ).toContain('stage: rejected');
    expect(h().double.violations).toEqual([]);
  });

  it('given the intake rejected and the pull request merged before the reactor ran, when the merge is delivered, then it is recorded as approving nothing (not refused), the proposal ends, and one pull request restores the file', async () => {
    const { requestId, proposalId, issue, pull } = await world().proposalWithPull(
      5,
      'token:octocat-agent',
    );
    h().double.closeIssue(OWNER, REPO, issue, { closedBy: 'grace', stateReason: 'not_planned' });
    await world().deliver('issues', world().issueClosedPayload(issue, 'grace'));
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });

    const merged = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(merged.body).toMatchObject({ status: 'not counted', proposalId });
    expect(String(merged.body.reason)).toContain(`after request ${requestId} had closed`);
    await world().deliver('push', mergePush(requestId, String(merge.merge_commit_sha), 'grace'));
    await world().runReactor();

    expect(await outcomeOf(requestId, proposalId)).toBe('rejected');
    expect(restoresOf(requestId).map((restore) => restore.head.ref)).toEqual([
      fileRestoreBranch(requestId, String(merge.merge_commit_sha)),
    ]);
    expect(
      (await divergences(requestId)).filter((d) => d.kind === 'merged_after_decision'),
    ).toHaveLength(1);
  });
});

describe('a merge whose delivery never arrives', () => {
  it('given a merged proposal pull request whose push arrives but whose merge does not, then the reactor keeps the merge as awaiting its decision (across a restart), reports it undelivered after the grace, and forgets it once the merge is delivered', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      6,
      'token:octocat-agent',
    );
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const sha = String(merge.merge_commit_sha);
    await world().deliver('push', mergePush(requestId, sha, 'grace'));

    const grace = { decisionGraceMs: 300 };
    const first = h().reactor(h().client(), grace);
    first.start();
    await reactorCaughtUp(h(), first);
    expect(first.status().undecidedMerges).toEqual([
      expect.objectContaining({ requestId, proposalId, pullNumber: pull, commit: sha }),
    ]);
    await waitFor(
      () => first.status().undecidedMerges[0]?.overdue === true,
      5000,
      'the merge to be overdue',
    );
    await first.stop();
    expect(await outcomeOf(requestId, proposalId)).toBe('pending');

    // Kept across a restart, until an operator redelivers the merge.
    const second = h().reactor(h().client(), grace);
    second.start();
    await reactorCaughtUp(h(), second);
    expect(second.status().undecidedMerges).toEqual([
      expect.objectContaining({ proposalId, overdue: true }),
    ]);
    const redelivered = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(redelivered.body).toMatchObject({ status: 'applied', command: 'approveProposal' });
    await reactorCaughtUp(h(), second);
    expect(second.status().undecidedMerges).toEqual([]);
    await second.stop();
    const { rows } = await h().database.pool.query(
      'SELECT * FROM github_reactor.undecided_merges WHERE proposal_id = $1',
      [proposalId],
    );
    expect(rows).toEqual([]);
    expect(await outcomeOf(requestId, proposalId)).toBe('approved');
    expect(restoresOf(requestId)).toEqual([]);
  });
});

describe('a merge on a deployment that approves locally', () => {
  it('given the approval mode set to local while a GitHub-configured process still receives deliveries, when a pending proposal is merged, then the merge approves nothing, the proposal still waits for a local decision, one pull request restores the file, and no merge is reported undelivered', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      7,
      'token:octocat-agent',
    );
    await h().governance.setMode({ mode: 'local', as: 'grace', reason: 'leaving GitHub' });
    try {
      // The push first: reconciled before the merge is recorded, it waits for the decision.
      const { sha, reason } = await mergeWithPushFirst(requestId, pull, 'grace');
      expect(reason).toContain('this deployment approves locally');
      const reactor = h().reactor(h().client());
      reactor.start();
      await reactorCaughtUp(h(), reactor);
      expect(reactor.status().undecidedMerges).toEqual([]);
      await reactor.stop();

      expect(await outcomeOf(requestId, proposalId)).toBe('pending');
      expect(restoresOf(requestId).map((restore) => restore.head.ref)).toEqual([
        fileRestoreBranch(requestId, sha),
      ]);
      expect(
        h().double.listFiles(OWNER, REPO, fileRestoreBranch(requestId, sha))[
          `requests/${requestId}.md`
        ],
      ).toContain('stage: proposed');
    } finally {
      await h().governance.setMode({ mode: 'github', as: 'grace' });
    }
  });
});
